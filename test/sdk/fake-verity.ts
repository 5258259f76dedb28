import { createHash } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/**
 * A loopback stand-in for Verity's token, JWKS, discovery and UserInfo endpoints, so the SDK's own
 * rules can be tested in isolation (the real server is exercised in test/demo/).
 */
export interface FakeKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function newKey(kid: string): Promise<FakeKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
  return { kid, privateKey, jwk };
}

export interface Recorded {
  path: string;
  method: string;
  headers: Headers;
  body: string;
}

export interface FakeVerity {
  url: string;
  requests: Recorded[];
  /** Keys published in the JWKS (edit to rotate). */
  published: FakeKey[];
  /** The JWKS's Cache-Control, Verity's own by default. */
  jwksCacheControl: string;
  /** Fields added to the discovery document. */
  discovery: Record<string, unknown>;
  /** Overrides the token endpoint's answer. */
  token: (req: Recorded) => Response | Promise<Response>;
  userinfo: (req: Recorded) => Response | Promise<Response>;
  documents: (req: Recorded, reference?: string) => Response | Promise<Response>;
  count(path: string): number;
  stop(): void;
}

export async function startFakeVerity(): Promise<FakeVerity> {
  const fake: FakeVerity = {
    url: '',
    requests: [],
    published: [],
    jwksCacheControl: 'public, max-age=300',
    discovery: {},
    token: () =>
      Response.json({ error: 'invalid_grant', error_description: 'not configured' }, { status: 400 }),
    userinfo: () => Response.json({ sub: 'sub-1' }),
    documents: () => Response.json({ data: { documents: [] } }),
    count: (path) => fake.requests.filter((r) => r.path === path).length,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const rec: Recorded = {
        path: url.pathname,
        method: req.method,
        headers: req.headers,
        body: await req.text(),
      };
      fake.requests.push(rec);
      switch (url.pathname) {
        case '/.well-known/openid-configuration':
          return Response.json({
            issuer: fake.url,
            authorization_endpoint: `${fake.url}/v1/oauth/authorize`,
            token_endpoint: `${fake.url}/v1/oauth/token`,
            userinfo_endpoint: `${fake.url}/v1/userinfo`,
            jwks_uri: `${fake.url}/.well-known/jwks.json`,
            ...fake.discovery,
          });
        case '/.well-known/jwks.json':
          return Response.json(
            { keys: fake.published.map((k) => k.jwk) },
            { headers: { 'cache-control': fake.jwksCacheControl } },
          );
        case '/v1/oauth/token':
          return fake.token(rec);
        case '/v1/userinfo':
          return fake.userinfo(rec);
        default:
          if (url.pathname === '/v1/userinfo/identity-documents') return fake.documents(rec);
          if (url.pathname.startsWith('/v1/userinfo/identity-documents/'))
            return fake.documents(rec, decodeURIComponent(url.pathname.split('/').pop()!));
          return new Response('not found', { status: 404 });
      }
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}

export interface IdTokenInput {
  key: FakeKey;
  iss: string;
  aud: string | string[];
  nonce: string;
  now: Date;
  sub?: string;
  expIn?: number;
  iatOffset?: number;
  authTimeOffset?: number;
  extra?: Record<string, unknown>;
  header?: Record<string, unknown>;
  /** The access token issued with it: its at_hash (RS256's), as Verity always sends one. */
  accessToken?: string;
}

export async function signIdToken(t: IdTokenInput): Promise<string> {
  const now = Math.floor(t.now.getTime() / 1000);
  const iat = now + (t.iatOffset ?? 0);
  return new SignJWT({
    nonce: t.nonce,
    auth_time: now + (t.authTimeOffset ?? 0),
    azp: t.aud,
    acr: 'high',
    ...(t.accessToken === undefined
      ? {}
      : {
          at_hash: createHash('sha256').update(t.accessToken).digest().subarray(0, 16).toString('base64url'),
        }),
    ...t.extra,
  })
    .setProtectedHeader({ alg: 'RS256', kid: t.key.kid, typ: 'JWT', ...t.header })
    .setIssuer(t.iss)
    .setAudience(t.aud)
    .setSubject(t.sub ?? 'pairwise-sub-1')
    .setIssuedAt(iat)
    .setExpirationTime(iat + (t.expIn ?? 900))
    .sign(t.key.privateKey);
}

/** The token endpoint's answer: an access token, and an ID token for `t` bound to it by at_hash. */
export async function tokenAnswer(
  t: IdTokenInput & { scope?: string },
  accessToken = t.accessToken ?? 'at_x',
): Promise<Response> {
  const { scope = 'openid', ...idToken } = t;
  return Response.json({
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: 900,
    scope,
    id_token: await signIdToken({ accessToken, ...idToken }),
  });
}

/** An unsigned `alg: none` token, or an HS256 one keyed with the public modulus (the classic confusion). */
export function unsignedToken(claims: Record<string, unknown>, header: Record<string, unknown>): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc(header)}.${enc(claims)}.`;
}
