import { type ApplicationView, listApplications } from '../apps/application.store.ts';
import type { AppContext } from '../context.ts';
import { base64url } from '../crypto/encoding.ts';
import { randomToken, sha256 } from '../crypto/tokens.ts';
import { DEMO_APP_NAME } from '../demo/registration.ts';

/** What the newcomer's first application asks for: sign-in, profile, email and the documents API. */
export const TRY_SCOPES =
  'openid profile email identity_documents document_type document_issuing_country document_validity';
export const TRY_REDIRECT_URI = 'http://localhost:3000/callback';

/** The exact command that registers a sandbox application for a first try. */
export const createAppCommand = (configArg: string) =>
  `verity apps create --name "My first app" --type public --redirect-uri ${TRY_REDIRECT_URI} --scopes "${TRY_SCOPES}"${configArg} --json`;

/**
 * The newest sandbox application a person registered. The demo relying party's own application is
 * left out: its callback accepts only the transactions the demo itself started.
 */
function newestSandboxApp(ctx: AppContext) {
  let best: { app: ApplicationView; env: ApplicationView['environments'][number] } | undefined;
  for (const app of listApplications(ctx.db)) {
    if (app.name === DEMO_APP_NAME) continue;
    const env = app.environments.find((e) => e.environment === 'sandbox' && e.redirectUris.length > 0);
    if (env && (!best || env.createdAt >= best.env.createdAt)) best = { app, env };
  }
  return best;
}

/**
 * A ready-to-open authorization URL for that application, with fresh state, nonce and PKCE challenge,
 * and the verifier that the code exchange will need (it is printed beside the URL: the person running
 * the server is the one trying the flow).
 */
export async function sandboxAuthorizationUrl(ctx: AppContext) {
  const found = newestSandboxApp(ctx);
  if (!found) return undefined;
  const verifier = randomToken('', 32);
  const url = new URL(`${ctx.config.server.base_url}/v1/oauth/authorize`);
  const scopes = found.env.scopes.filter((s) => s !== 'document_number_full');
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: found.env.clientId,
    redirect_uri: found.env.redirectUris[0]!,
    scope: scopes.join(' '),
    state: randomToken('', 32),
    nonce: randomToken('', 32),
    code_challenge: base64url(await sha256(verifier)),
    code_challenge_method: 'S256',
    purpose: 'Try a sandbox sign-in',
  }).toString();
  return { application: found.app, environment: found.env, url: url.href, verifier };
}

/** The welcome lines `verity serve` logs once it listens. */
export async function sandboxWelcome(ctx: AppContext, configPath?: string): Promise<string[]> {
  const base = ctx.config.server.base_url;
  const lines = [
    `Discovery document: ${base}/.well-known/openid-configuration`,
    `Identity experience: ${ctx.config.server.identity_url}`,
    `API reference (OpenAPI): ${base}/openapi.json`,
  ];
  const tryIt = await sandboxAuthorizationUrl(ctx);
  if (tryIt) {
    lines.push(
      `Try a sandbox sign-in with "${tryIt.application.name}" (${tryIt.environment.clientId}): open ${tryIt.url}`,
      `Pick a persona, "Pass face check", "Allow"; then exchange the code from ${tryIt.environment.redirectUris[0]} with code_verifier=${tryIt.verifier} (docs/quickstart.md)`,
    );
  } else {
    const configArg = configPath && configPath !== './verity.toml' ? ` --config ${configPath}` : '';
    lines.push(
      `No sandbox application yet. Register one to try a sign-in: ${createAppCommand(configArg)}`,
      'From a checkout, run the CLI as `npx bun src/main.ts` in place of `verity`; docs/quickstart.md walks through the rest.',
    );
  }
  return lines;
}
