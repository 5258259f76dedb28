import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { runExample } from '../../docs/examples/openid-client.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { completeSandboxFlow } from '../e2e/relying-party.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { cli } from '../helpers/cli.ts';
import { freePort, startTestServer, type TestServer } from '../helpers/server.ts';

setDefaultTimeout(60_000);

/**
 * docs/examples/openid-client.ts run against a real server, with applications registered by the CLI
 * command the quickstart shows and the sign-in done in Chromium, so the documented path keeps working.
 */

let server: TestServer;
let browser: Browser;
const SCOPE =
  'openid profile email identity_documents document_type document_issuing_country document_validity';

beforeAll(async () => {
  // openid-client checks the ID token's iat/exp against real time.
  server = await startTestServer({ clock: fixedClock(Date.now()) });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function register(type: 'public' | 'confidential', redirectUri: string) {
  const r = await cli(
    'apps',
    'create',
    '--name',
    `Quickstart ${type}`,
    '--type',
    type,
    '--redirect-uri',
    redirectUri,
    '--scopes',
    SCOPE,
    '--config',
    server.configPath,
    '--json',
  );
  expect(r.code).toBe(0);
  return r.json as { applicationId: string; clientId: string; clientSecret?: string };
}

/** A person in the browser: opens the URL, picks Ada, passes the face step, allows. */
const signInAsAda = async (url: string) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await completeSandboxFlow(page, 'Ada Sandbox');
  await page.waitForURL((u) => u.pathname === '/callback');
  await context.close();
};

for (const type of ['public', 'confidential'] as const)
  test(`${type} application: code exchanged, ID token validated, UserInfo and documents read`, async () => {
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const app = await register(type, redirectUri);
    expect(app.clientSecret === undefined).toBe(type === 'public');

    const result = await runExample(
      {
        issuer: server.ctx.config.server.base_url,
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        redirectUri,
        scope: SCOPE,
      },
      signInAsAda,
    );

    expect(result.tokens.token_type.toLowerCase()).toBe('bearer');
    expect(result.tokens.expires_in).toBe(900);
    expect(result.tokens.refresh_token).toBeUndefined();
    expect(result.claims!.aud).toBe(app.clientId);
    expect(result.claims!.iss).toBe(server.ctx.config.server.base_url);
    expect(result.userinfo.sub).toBe(result.claims!.sub);
    expect(result.userinfo.name).toBe('Ada Sandbox');
    expect(result.userinfo.email).toBe('ada@sandbox.example');
    const documents = (result.documents as { data: { documents: Record<string, unknown>[] } }).data.documents;
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({
      documentType: 'passport',
      issuingCountry: 'DE',
      validityStatus: 'valid',
    });
  });
