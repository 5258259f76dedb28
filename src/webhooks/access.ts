import { ownsApplicationIn } from '../apps/application.store.ts';
import type { Db } from '../db/open.ts';
import type { Environment } from '../environment.ts';
import { NotFoundError } from '../errors.ts';

/** Who is acting through the developer API (or the portal): a developer, in one environment. */
export interface DeveloperPrincipal {
  developerId: string;
  environment: Environment;
  /**
   * Throws the surface's own error once the key or session acting has ended (revoked, signed out, the
   * account taken back): asked again where a write commits after a wait.
   */
  assertActing?: () => void;
}

/**
 * The application must belong to the developer and have the principal's environment. Anything else
 * (unknown, another owner's, production not yet approved) is the same 404, so an application's
 * existence is never revealed to someone who does not own it.
 */
export function assertApplicationAccess(db: Db, dev: DeveloperPrincipal, applicationId: string): void {
  if (!ownsApplicationIn(db, dev.developerId, dev.environment, applicationId))
    throw new NotFoundError('No such application.');
}
