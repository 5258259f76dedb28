import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import { createTestApp } from '../helpers/apps.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, mintCode, REDIRECT } from './fixtures.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ extra: '[rate_limits.oauth]\nrequests = 1000' });
});
afterAll(() => server.stop());

test('of 20 concurrent redemptions over HTTP exactly one wins; the token it got is then revoked', async () => {
  const ctx = server.ctx;
  const app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: ['openid'],
  });
  const m = await mintCode(ctx, app, { scopes: ['openid'] });
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: m.code,
    redirect_uri: m.redirectUri,
    code_verifier: m.verifier!,
  }).toString();
  const responses = await Promise.all(
    Array.from({ length: 20 }, () =>
      fetch(`${server.url}/v1/oauth/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: basic(app.clientId, app.clientSecret!),
        },
        body,
      }),
    ),
  );
  const statuses = responses.map((r) => r.status);
  expect(statuses.filter((s) => s === 200).length).toBe(1);
  expect(statuses.filter((s) => s === 400).length).toBe(19);
  const bodies = (await Promise.all(responses.map((r) => r.json()))) as Record<string, string>[];
  for (const b of bodies) if (!b.access_token) expect(b.error).toBe('invalid_grant');
  const winner = bodies.find((b) => b.access_token)!;
  const tokens = ctx.db.sql.prepare<any>('SELECT * FROM access_tokens').all();
  expect(tokens.length).toBe(1);
  expect(tokens[0].token_hash).toBe(await sha256Hex(winner.access_token!));
  // The losers are replays of a code already used: what it issued is revoked.
  expect(tokens[0].revoked_at).not.toBeNull();
});
