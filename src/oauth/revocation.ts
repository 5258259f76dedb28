import { ACCESS_TOKEN_PREFIX } from '../apps/credential-prefixes.ts';
import { securityEvent } from '../audit/security-events.ts';
import { accessTokenOwner, revokeLiveAccessToken } from '../auth/access-token.store.ts';
import type { AppContext } from '../context.ts';
import { locatedSecretId, matchesStoredHash } from '../crypto/located-secret.ts';
import { subjectFor } from '../keys/pairwise.ts';
import { isoTime, unix } from '../platform/clock.ts';
import { enqueueEvent } from '../webhooks/outbox.store.ts';
import type { OAuthClient } from './client.store.ts';

/**
 * Revokes an access token at the request of the client it was issued to (RFC 7009 §2.1). Whatever
 * the token, the client hears the same (§2.2): an unknown, expired or already revoked token is no
 * error, and one issued to another client is left as it is. A live token revoked here fails UserInfo
 * and the documents API at once (every use re-reads its row) and queues `token.revoked` in the same
 * transaction. `token_type_hint` is not needed: access tokens are the only tokens Verity issues.
 * Returns whether this call revoked the token.
 */
export async function revokeToken(ctx: AppContext, client: OAuthClient, token: string): Promise<boolean> {
  const id = locatedSecretId(token, ACCESS_TOKEN_PREFIX);
  if (id === undefined) return false;
  const row = accessTokenOwner(ctx.db, id);
  if (!row || !matchesStoredHash(token, row.token_hash) || row.environment_id !== client.environmentId)
    return false;
  const sub = await subjectFor(ctx, client.applicationId, row.person_id);
  const now = unix(ctx.clock);
  const revoked = ctx.db.sql.transaction(() => {
    // Conditional, so of concurrent revocations one revokes and one event is sent.
    if (!revokeLiveAccessToken(ctx.db, id, now)) return false;
    enqueueEvent(ctx, {
      type: 'token.revoked',
      applicationId: client.applicationId,
      environment: client.environment,
      data: {
        applicationId: client.applicationId,
        environment: client.environment,
        sub,
        consentId: row.consent_id,
        reason: 'revoked_by_client',
        at: isoTime(now),
      },
    });
    return true;
  });
  if (revoked)
    securityEvent(ctx, 'token.revoked', {
      clientId: client.clientId,
      applicationId: client.applicationId,
      environment: client.environment,
      personId: row.person_id,
      consentId: row.consent_id,
    });
  return revoked;
}
