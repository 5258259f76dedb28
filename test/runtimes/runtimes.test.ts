import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { artifactFor, type Started, startWay, WAYS } from '../../scripts/smoke.ts';
import { type RelyingParty, signInWithOpenIdClient, startRelyingParty } from '../e2e/relying-party.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { onPostgres } from '../helpers/context.ts';
import { waitFor } from '../helpers/wait.ts';
import { type Receiver, receiver, verify } from '../webhooks/fixtures.ts';

setDefaultTimeout(60_000);

/**
 * One behaviour suite, run against `verity serve` under every runtime it ships for: Bun and Deno from
 * source, the Node 20 bundle, and the two compiled executables. Each is started as a child process
 * with its own config, database and keys, and driven only from the outside, as an operator and a
 * relying party would: discovery, a Chromium sign-in through openid-client, UserInfo and documents,
 * the webhook its developer receives, consent revocation and a key rotation by the CLI of the same
 * runtime. With VERITY_TEST_ENGINE=postgres each runtime serves from PostgreSQL instead of SQLite.
 * The artifacts are built into a temporary directory first; dist/verity-deno needs a
 * download (see scripts/build.ts), and its runtime is skipped, with a message, when it could not be
 * built.
 */

const root = join(import.meta.dir, '../..');
const dist = join(root, '.tmp', `runtimes-${crypto.randomUUID()}`);
const SCOPES = 'openid profile identity_documents document_type';

let browser: Browser;
let rp: RelyingParty;

// Built while the tests are collected. Only dist/verity-deno may be missing, and only when the build said
// why (deno compile could not get its runtime binary, denort): then its tests are skipped, not passed.
mkdirSync(dist, { recursive: true });
const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', '--out', dist], {
  cwd: root,
  stdout: 'pipe',
  stderr: 'pipe',
});
if (build.exitCode !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
const denortUnavailable = /verity-deno skipped: deno compile needs Deno's runtime binary/.test(
  `${build.stdout}${build.stderr}`,
);

beforeAll(async () => {
  rp = startRelyingParty();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await rp?.stop();
  rmSync(dist, { recursive: true, force: true });
});

/** What an operator's CLI call printed as JSON; fails the test with its output otherwise. */
function cliJson(server: Started, ...argv: string[]): any {
  const r = server.cli(...argv, '--json');
  if (r.exitCode !== 0) throw new Error(`verity ${argv.join(' ')} exited ${r.exitCode}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

for (const way of WAYS) {
  describe(`verity under ${way}`, () => {
    let server: Started;
    let hooks: Receiver;
    let app: { applicationId: string; clientId: string };
    let config: oidc.Configuration;
    let webhookSecret: string;
    let tokens: Awaited<ReturnType<typeof signInWithOpenIdClient>>;
    const artifact = artifactFor(way, dist);
    const built = !artifact || existsSync(artifact);
    if (!built && !(way === 'deno-binary' && denortUnavailable))
      throw new Error(`${artifact} was not built, and the build gave no reason it may be missing`);

    beforeAll(async () => {
      if (!built) {
        console.warn(`runtimes: ${way} skipped: ${artifact} could not be built (see scripts/build.ts)`);
        return;
      }
      hooks = receiver(() => new Response(null, { status: 204 }));
      server = await startWay(way, {
        dist,
        engine: onPostgres ? 'postgres' : 'sqlite',
        extraConfig: '[webhooks]\nallow_localhost_in_sandbox = true\n[rate_limits.oauth]\nrequests = 1000',
      });
      const { developerId } = cliJson(server, 'developers', 'create', '--email', `${way}@example.com`);
      const { key } = cliJson(server, 'developers', 'keys', 'create', developerId, '--env', 'sandbox');
      app = cliJson(
        server,
        'apps',
        'create',
        '--name',
        `RP on ${way}`,
        '--type',
        'public',
        '--redirect-uri',
        rp.callbackUrl,
        '--scopes',
        SCOPES,
        '--owner',
        developerId,
      );
      const created = await fetch(
        `${server.baseUrl}/v1/developer/applications/${app.applicationId}/webhooks`,
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ url: hooks.url, events: ['consent.granted', 'consent.revoked'] }),
        },
      );
      expect(created.status).toBe(201);
      webhookSecret = (await created.json()).data.secret;
    }, 120_000);

    afterAll(async () => {
      await server?.dispose();
      await hooks?.stop();
    });

    const delivered = async (type: string) => {
      const find = () => hooks.received.find((r) => JSON.parse(r.body).type === type);
      await waitFor(`a ${type} delivery`, () => find() !== undefined, 15_000);
      return find()!;
    };
    const it = (name: string, fn: () => Promise<void>) => test.skipIf(!built)(name, fn);

    it('discovery names the issuer and the endpoints under it', async () => {
      config = await oidc.discovery(new URL(server.baseUrl), app.clientId, undefined, oidc.None(), {
        execute: [oidc.allowInsecureRequests],
      });
      const meta = config.serverMetadata();
      expect(meta.issuer).toBe(server.baseUrl);
      expect(meta.token_endpoint).toBe(`${server.baseUrl}/v1/oauth/token`);
      expect(meta.jwks_uri).toBe(`${server.baseUrl}/.well-known/jwks.json`);
    });

    it('a Chromium sign-in: code exchanged for tokens, ID token validated by openid-client', async () => {
      tokens = await signInWithOpenIdClient({
        browser,
        rp,
        config,
        scope: SCOPES,
        purpose: `Sign in on ${way}`,
      });
      expect(tokens.access_token).toStartWith('at_');
      const claims = tokens.claims()!;
      expect(claims.iss).toBe(server.baseUrl);
      expect(claims.aud).toBe(app.clientId);
      expect(claims.amr).toEqual(['sandbox', 'face']);
    });

    it('UserInfo, the shared documents and a document proof answer the access token', async () => {
      const sub = tokens.claims()!.sub;
      const info = await oidc.fetchUserInfo(config, tokens.access_token, sub);
      expect(info.sub).toBe(sub);
      const res = await fetch(`${server.baseUrl}/v1/userinfo/identity-documents`, {
        headers: { Authorization: `Bearer ${tokens.access_token}` },
      });
      expect(res.status).toBe(200);
      const { documents } = (await res.json()).data;
      expect(documents.length).toBeGreaterThan(0);
      expect(documents[0].documentType).toBeString();
      const proof = await fetch(
        `${server.baseUrl}/v1/userinfo/identity-documents/${documents[0].documentReference}/proof`,
        { headers: { Authorization: `Bearer ${tokens.access_token}` } },
      );
      expect(proof.headers.get('content-type')).toBe('application/jwt');
      const jwks = createLocalJWKSet(await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json());
      const { payload } = await jwtVerify(await proof.text(), jwks, {
        issuer: server.baseUrl,
        audience: app.clientId,
        typ: 'verity-document-proof+jwt',
      });
      expect(payload.document).toMatchObject({ documentReference: documents[0].documentReference });
    });

    it('the consent.granted webhook arrives, signed with the endpoint secret', async () => {
      expect((await verify(await delivered('consent.granted'), [webhookSecret], new Date())).ok).toBe(true);
    });

    it('revoking the consent from the CLI ends UserInfo at once and sends consent.revoked', async () => {
      const { consents } = cliJson(server, 'consents', 'list', '--app', app.applicationId);
      expect(consents).toHaveLength(1);
      expect(cliJson(server, 'consents', 'revoke', consents[0].consentId).status).toBe('revoked');
      const res = await fetch(`${server.baseUrl}/v1/userinfo`, {
        headers: { Authorization: `Bearer ${tokens.access_token}` },
      });
      expect(res.status).toBe(401);
      expect((await verify(await delivered('consent.revoked'), [webhookSecret], new Date())).ok).toBe(true);
    });

    it('keys rotate --now is seen by the running server: JWKS and the next ID token', async () => {
      const rotated = cliJson(server, 'keys', 'rotate', '--now');
      const jwks = () => fetch(`${server.baseUrl}/.well-known/jwks.json`).then((r) => r.json());
      await waitFor(
        'the rotated key first in the JWKS',
        async () => (await jwks()).keys[0].kid === rotated.active.RS256,
        10_000,
      );
      const next = await signInWithOpenIdClient({
        browser,
        rp,
        config,
        scope: SCOPES,
        purpose: `Sign in on ${way} after the rotation`,
      });
      const [header] = next.id_token!.split('.');
      expect(JSON.parse(atob(header!.replace(/-/g, '+').replace(/_/g, '/'))).kid).toBe(rotated.active.RS256);
    });

    it('SIGTERM stops it cleanly', async () => {
      expect(await server.stop()).toBe(0);
    });
  });
}
