import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sandboxWelcome } from '../../src/cli/welcome.ts';
import { base64url } from '../../src/crypto/encoding.ts';
import { sha256 } from '../../src/crypto/tokens.ts';
import { createTestApp } from '../helpers/apps.ts';
import { cli } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

/** Splits a printed command line the way a shell would (double quotes only, which is all it uses). */
const argv = (command: string) => [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);

test('without a sandbox application: where things are, and the exact command that registers one', async () => {
  const lines = await sandboxWelcome(server.ctx, server.configPath);
  const base = server.ctx.config.server.base_url;
  expect(lines).toContain(`Discovery document: ${base}/.well-known/openid-configuration`);
  expect(lines).toContain(`Identity experience: ${server.ctx.config.server.identity_url}`);
  const discovery = await fetch(`${base}/.well-known/openid-configuration`);
  expect(discovery.status).toBe(200);

  const prefix = 'No sandbox application yet. Register one to try a sign-in: ';
  const line = lines.find((l) => l.startsWith(prefix));
  expect(line).toBeDefined();
  const [program, ...args] = argv(line!.slice(prefix.length));
  expect(program).toBe('verity');
  expect(args).toContain(server.configPath);
  // The printed command works as printed.
  const created = await cli(...args);
  expect(created.code).toBe(0);
  expect(created.json.clientId).toStartWith('cid_test_');
  expect(created.json.clientSecret).toBeUndefined();

  const after = await sandboxWelcome(server.ctx, server.configPath);
  expect(after.some((l) => l.startsWith('No sandbox application'))).toBe(false);
  expect(after.join('\n')).toContain(created.json.clientId);
});

test('with a sandbox application: a ready-to-open authorization URL that the server accepts', async () => {
  // A server of its own: the CLI above stamped its application with the real time, not the test clock.
  await server.stop();
  server = await startTestServer();
  const app = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: ['http://localhost:4000/cb'],
    scopes: 'openid profile',
    name: 'Newest',
  });
  const lines = await sandboxWelcome(server.ctx, server.configPath);
  const tryLine = lines.find((l) => l.startsWith('Try a sandbox sign-in'))!;
  expect(tryLine).toContain('"Newest"');
  const url = new URL(tryLine.slice(tryLine.indexOf('open ') + 5));
  expect(url.searchParams.get('client_id')).toBe(app.clientId);
  expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:4000/cb');
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  expect(url.searchParams.get('state')!.length).toBeGreaterThanOrEqual(43);
  expect(url.searchParams.get('nonce')!.length).toBeGreaterThanOrEqual(43);

  // The printed verifier belongs to the URL's challenge, so the code can be exchanged by hand.
  const verifier = /code_verifier=(\S+)/.exec(lines.join('\n'))![1]!;
  expect(base64url(await sha256(verifier))).toBe(url.searchParams.get('code_challenge')!);

  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toStartWith(`${server.ctx.config.server.identity_url}/authorize/`);

  // Fresh values on every start: a logged URL is never replayed as the same transaction.
  const again = await sandboxWelcome(server.ctx, server.configPath);
  expect(again.join('\n')).not.toContain(url.searchParams.get('state')!);
});
