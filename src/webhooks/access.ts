import type { Db } from '../db/open.ts';
import { NotFoundError } from '../errors.ts';
import type { Environment } from './events.ts';

/** Who is acting through the developer API (or the portal): a developer, in one environment. */
export interface DeveloperPrincipal {
  developerId: string;
  environment: Environment;
}

/**
 * The application must belong to the developer and have the principal's environment. Anything else
 * (unknown, another owner's, production not yet approved) is the same 404, so an application's
 * existence is never revealed to someone who does not own it.
 */
export function assertApplicationAccess(db: Db, dev: DeveloperPrincipal, applicationId: string): void {
  const row = db.sql
    .prepare<{ owner: string | null; has_env: number }>(
      `SELECT a.owner_developer_id AS owner,
              EXISTS (SELECT 1 FROM application_environments x WHERE x.application_id = a.id AND x.environment = ?) AS has_env
       FROM applications a WHERE a.id = ?`,
    )
    .get(dev.environment, applicationId);
  if (!row || row.owner === null || row.owner !== dev.developerId || !row.has_env)
    throw new NotFoundError('No such application.');
}
