import { afterEach, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { createRemoteJWKSet, jwtVerify, SignJWT } from 'jose';
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import { rotateManually } from '../../src/keys/key-admin.ts';
import { promote } from '../../src/keys/rotation.ts';
import { silentLogger } from '../../src/log.ts';
import { unix } from '../../src/platform/clock.ts';
import { cli } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer | undefined;
afterEach(async () => {
  await srv?.stop();
  srv = undefined;
});

describe('GET /.well-known/jwks.json', () => {
  test('public keys only, one of each algorithm, RS256 first, cacheable for 5 minutes', async () => {
    srv = await startTestServer();
    const res = await fetch(`${srv.url}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = (await res.json()) as { keys: Record<string, string>[] };
    expect(body.keys.length).toBe(3);
    const [rsa, ec, ed] = body.keys;
    expect(Object.keys(rsa!).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(rsa).toMatchObject({
      kty: 'RSA',
      use: 'sig',
      alg: 'RS256',
      kid: srv.ctx.keys.store.active('RS256')!.kid,
    });
    expect(Object.keys(ec!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    expect(ec).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
      use: 'sig',
      alg: 'ES256',
      kid: srv.ctx.keys.store.active('ES256')!.kid,
    });
    expect(Object.keys(ed!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    expect(ed).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      use: 'sig',
      alg: 'EdDSA',
      kid: srv.ctx.keys.store.active('EdDSA')!.kid,
    });
    for (const key of body.keys)
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth']) expect(key[secret]).toBeUndefined();
    const text = JSON.stringify(body);
    expect(text).not.toContain('"d"');
    expect(text).not.toContain('created_at');
  });

  test('a running server picks up a rotation made with the CLI', async () => {
    srv = await startTestServer();
    const before = srv.ctx.keys.store.active()!.kid;
    // Warm the server's caches so it has something stale to notice.
    expect((await srv.ctx.keys.signingKey()).kid).toBe(before);
    await fetch(`${srv.url}/.well-known/jwks.json`);

    const r = await cli('keys', 'rotate', '--now', '--config', srv.configPath, '--json');
    expect(r.code).toBe(0);
    const after = r.json.active.RS256 as string;
    expect(after).not.toBe(before);

    // The server rechecks the key set every couple of seconds of real time, whatever its clock says.
    const deadline = performance.now() + 10_000;
    let kids: string[] = [];
    while (performance.now() < deadline) {
      const body = (await (await fetch(`${srv.url}/.well-known/jwks.json`)).json()) as {
        keys: { kid: string }[];
      };
      kids = body.keys.map((k) => k.kid);
      if (kids[0] === after) break;
      await Bun.sleep(100);
    }
    const { active, next } = r.json;
    expect(kids).toEqual([
      after,
      active.ES256,
      active.EdDSA,
      next.RS256,
      next.ES256,
      next.EdDSA,
      before,
      expect.any(String),
      expect.any(String),
    ]);
    expect(kids.slice(6).sort()).toEqual([...r.json.retired].sort());
    const { kid, key } = await srv.ctx.keys.signingKey();
    expect(kid).toBe(after);

    // A token the server now signs verifies against its published JWKS.
    const now = unix(srv.clock);
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(key);
    const set = createRemoteJWKSet(new URL(`${srv.url}/.well-known/jwks.json`));
    const { protectedHeader } = await jwtVerify(jwt, set, { currentDate: srv.clock.now() });
    expect(protectedHeader.kid).toBe(after);
  });

  test('under load, every request sent after another connection rotated the keys gets the new key', async () => {
    srv = await startTestServer();
    // Another instance on the same database: its own connection and key service.
    const other = await createContext(parseConfig(readFileSync(srv.configPath, 'utf8')), {
      log: silentLogger,
      migrate: false,
    });
    const url = `${srv.url}/.well-known/jwks.json`;
    // Answers of one turn share the body read, never the request id (every response carries its own).
    const requestIds: string[] = [];
    const firstKid = async () => {
      const res = await fetch(url);
      requestIds.push(res.headers.get('x-request-id')!);
      return ((await res.json()) as { keys: { kid: string }[] }).keys[0]!.kid;
    };
    const before = await firstKid();
    let rotatedAt = Number.POSITIVE_INFINITY;
    let stop = false;
    // What each request sent after the rotation was committed was answered with.
    const late: string[] = [];
    const client = async () => {
      while (!stop) {
        const sent = performance.now();
        const kid = await firstKid();
        if (sent > rotatedAt) late.push(kid);
      }
    };
    const clients = Array.from({ length: 20 }, client);
    await Bun.sleep(100);
    // The next keys are published first; promoting them is one transaction, committed right here.
    await rotateManually(other, { immediate: false });
    expect(promote(other, other.keys.store.nextSet(), unix(other.clock), 'cli')).toBeDefined();
    rotatedAt = performance.now();
    await Bun.sleep(200);
    stop = true;
    await Promise.all(clients);
    const after = other.keys.store.active('RS256')!.kid;
    other.db.close();
    expect(after).not.toBe(before);
    expect(late.length).toBeGreaterThan(20);
    expect(late.filter((kid) => kid !== after)).toEqual([]);
    expect(new Set(requestIds).size).toBe(requestIds.length);
    expect(requestIds.every((id) => /^[0-9a-f-]{36}$/.test(id))).toBe(true);
  });
});
