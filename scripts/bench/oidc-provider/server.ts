/**
 * node-oidc-provider 9 for the side-by-side benchmark (scripts/bench/flow.ts --compare), run under
 * Node: `node oidc-provider.mjs DB PORT` (flow.ts builds this file for Node into dist/bench/).
 * One confidential client with PKCE, `openid email`, RS256 ID tokens with a 2048-bit key, storage in
 * SQLite (sqlite-adapter.ts). Next to the provider's routes, the benchmark's own:
 *   POST /bench/mint?n=N   N codes, each from its own login: a session, a grant and a code, made
 *                          through the provider's models as its interaction would make them.
 *   GET  /bench/sign?ms=M  node:crypto's sequential RS256 rate with the provider's key: Node's ceiling.
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';
import { CLIENT, SCOPE } from './client.ts';
import { sqliteAdapter } from './sqlite-adapter.ts';

const [dbPath, portArg] = process.argv.slice(2);
const port = Number(portArg);
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'bench', use: 'sig', alg: 'RS256' };

const provider = new Provider(`http://127.0.0.1:${port}`, {
  adapter: sqliteAdapter(dbPath!),
  clients: [
    {
      client_id: CLIENT.client_id,
      client_secret: CLIENT.client_secret,
      redirect_uris: [CLIENT.redirect_uri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    },
  ],
  jwks: { keys: [jwk as never] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  findAccount: async (_ctx, sub) => ({
    accountId: sub,
    claims: async () => ({ sub, email: `${sub}@bench.example`, email_verified: true }),
  }),
  pkce: { required: () => true },
  cookies: { keys: ['bench-cookie-key'] },
  features: { devInteractions: { enabled: false } },
});
const callback = provider.callback();

const base64url = (b: Buffer) => b.toString('base64url');
// Grants and sessions are saved with a lifetime; the type definitions leave the argument out.
const saveFor = (model: object, ttl: number) => (model as { save(ttl: number): Promise<string> }).save(ttl);

async function mint(n: number) {
  const client = await provider.Client.find(CLIENT.client_id);
  if (!client) throw new Error('bench client missing');
  const codes: { code: string; verifier: string }[] = [];
  for (let i = 0; i < n; i++) {
    const accountId = base64url(randomBytes(12));
    const now = Math.floor(Date.now() / 1000);
    const grant = new provider.Grant({ accountId, clientId: CLIENT.client_id });
    grant.addOIDCScope(SCOPE);
    const grantId = await saveFor(grant, 3600);
    const sid = base64url(randomBytes(12));
    const session = Object.assign(new provider.Session(), {
      accountId,
      loginTs: now,
      authorizations: { [CLIENT.client_id]: { sid, grantId } },
    });
    await saveFor(session, 3600);
    const verifier = base64url(randomBytes(32));
    const code = new provider.AuthorizationCode({
      accountId,
      client,
      grantId,
      scope: SCOPE,
      redirectUri: CLIENT.redirect_uri,
      codeChallenge: base64url(createHash('sha256').update(verifier).digest()),
      codeChallengeMethod: 'S256',
      nonce: base64url(randomBytes(16)),
      authTime: now,
      sessionUid: session.uid,
      sid,
      expiresWithSession: true,
      // Long enough for the whole benchmark (the default is a minute).
      expiresIn: 3600,
    } as never);
    codes.push({ code: await code.save(), verifier });
  }
  return codes;
}

function signing(ms: number) {
  const key = createPrivateKey({ key: jwk as never, format: 'jwk' });
  const input = Buffer.from(`${base64url(randomBytes(60))}.${base64url(randomBytes(300))}`);
  for (let i = 0; i < 50; i++) sign('sha256', input, key);
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    sign('sha256', input, key);
    n++;
  }
  return { signsPerSecond: n / ((performance.now() - start) / 1000) };
}

createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const json = (value: unknown) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(value));
  };
  if (url.pathname === '/bench/mint') {
    mint(Number(url.searchParams.get('n'))).then(json, (e: Error) => {
      res.statusCode = 500;
      res.end(String(e.stack));
    });
  } else if (url.pathname === '/bench/sign') json(signing(Number(url.searchParams.get('ms') ?? 150)));
  else callback(req, res);
}).listen(port, '127.0.0.1', () => console.log(JSON.stringify({ ready: true })));
