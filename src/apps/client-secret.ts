import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import type { Db } from '../db/open.ts';
import type { Environment } from '../environment.ts';
import { ValidationError } from '../errors.ts';
import type { Clock } from '../platform/clock.ts';
import {
  findEnvironment,
  getApplication,
  insertSecret,
  newClientSecret,
  revokeSecrets,
} from './application.store.ts';
import { deleteSecretReveal } from './secret-reveal.store.ts';

/**
 * Issues a new client secret for one environment and revokes the previous ones in the same instant:
 * a rotation is what an operator does after a leak, so no grace period is given.
 */
export async function rotateClientSecret(
  db: Db,
  clock: Clock,
  applicationId: string,
  environment: Environment,
  opts: { actor: AuditActor },
): Promise<{ clientId: string; clientSecret: string }> {
  const { secret, hash } = await newClientSecret(environment);
  return db.sql.transaction(() => {
    const app = getApplication(db, applicationId);
    if (app.type === 'public')
      throw new ValidationError(
        `application ${applicationId} is a public client: public clients have no client secret`,
      );
    const env = findEnvironment(db, applicationId, environment);
    if (!env)
      throw new ValidationError(
        `application ${applicationId} has no ${environment} environment: it exists only after "apps review approve"`,
      );
    const revoked = revokeSecrets(db, clock, env.id);
    // A secret still waiting for its one reveal is no longer the one that works.
    if (environment === 'production') deleteSecretReveal(db, applicationId);
    insertSecret(db, clock, env.id, hash);
    recordAudit(db, clock, {
      actor: opts.actor,
      action: 'client_secret.rotate',
      target: applicationId,
      details: { environment, clientId: env.clientId, revoked },
    });
    return { clientId: env.clientId, clientSecret: secret };
  });
}
