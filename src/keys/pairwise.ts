import type { AppContext } from '../context.ts';
import { hmacSha256Base64url } from '../crypto/digest.ts';
import { instanceSecret } from './instance-secrets.ts';

/**
 * Pairwise subject (DESIGN.md §5): base64url(HMAC-SHA256(instance secret, sector ‖ person id)), where the
 * sector is the application. Ids never contain ":", so the concatenation is unambiguous. Independent
 * of signing keys, so it is stable across rotations and restarts.
 */
export function pairwiseSubject(secret: string, applicationId: string, personId: string): string {
  return hmacSha256Base64url(secret, `${applicationId}:${personId}`);
}

// Keyed by the context's own Config; the secret file never changes once written, so this memo stays.
const secrets = new WeakMap<object, Promise<string>>();

/** The instance's pairwise secret, loaded once per configuration. */
export function pairwiseSecret(ctx: Pick<AppContext, 'config'>): Promise<string> {
  let s = secrets.get(ctx.config);
  if (!s) {
    s = instanceSecret(ctx.config, 'pairwise', ctx.config.oidc.pairwise_secret);
    secrets.set(ctx.config, s);
  }
  return s;
}

export async function subjectFor(
  ctx: Pick<AppContext, 'config'>,
  applicationId: string,
  personId: string,
): Promise<string> {
  return pairwiseSubject(await pairwiseSecret(ctx), applicationId, personId);
}
