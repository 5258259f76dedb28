import { type SdkClock, systemClock } from './clock.ts';
import { UnexpectedResponseError } from './errors.ts';
import { type FetchLike, readJson, send } from './http.ts';
import type { DiscoveryDocument } from './types.ts';

/** Fetches `/.well-known/openid-configuration` and checks it names the expected issuer (OIDC Discovery §4.3). */
export async function discover(
  issuer: string,
  opts: { fetch?: FetchLike; clock?: SdkClock } = {},
): Promise<DiscoveryDocument> {
  const base = issuer.replace(/\/+$/, '');
  const res = await send(opts.fetch ?? fetch, `${base}/.well-known/openid-configuration`, {
    headers: { accept: 'application/json' },
  });
  const doc = await readJson<DiscoveryDocument>(res, (opts.clock ?? systemClock).now());
  if (doc.issuer !== base) throw new UnexpectedResponseError(`discovery issuer ${doc.issuer} is not ${base}`);
  for (const f of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri'] as const)
    if (typeof doc[f] !== 'string') throw new UnexpectedResponseError(`discovery document has no ${f}`);
  return doc;
}
