import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { openDb } from '../../src/db/open.ts';
import { cliProcess } from '../helpers/cli.ts';
import { waitFor } from '../helpers/wait.ts';
import { type Client, FleetBrowser, signInForCode, tokenRequest } from './browser.ts';
import { createClient, type Fleet, startFleet } from './fleet.ts';

/**
 * Three instances and the CLI sharing one PostgreSQL database and one keys directory: one active key
 * per algorithm whoever rotates, rotations one at a time, and a new key published by every instance
 * before any of them signs with it.
 */
let fleet: Fleet;
let client: Client;

beforeAll(async () => {
  fleet = await startFleet(3, { server: 'trust_proxy = "x-forwarded-for"' });
  client = await createClient(fleet, 'Keys Shop');
}, 60_000);

afterAll(async () => {
  await fleet?.stop();
});

let lastAddress = 0;
const freshAddress = () => `10.77.${(++lastAddress >> 8) & 255}.${lastAddress & 255}`;

const jwks = async (base: string) =>
  (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: string }[] };
const publishedKids = async (base: string) => (await jwks(base)).keys.map((k) => k.kid).sort();

/** An ID token signed by instance `i`, after a sign-in whose steps go to every instance. */
async function idTokenFrom(i: number): Promise<string> {
  const b = new FleetBrowser(fleet.urls, fleet.baseUrl, freshAddress());
  const { code, verifier } = await signInForCode(b, client);
  const res = await fetch(
    `${fleet.urls[i]}/v1/oauth/token`,
    tokenRequest(client, code, verifier, freshAddress()),
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { id_token: string }).id_token;
}

/** `verity keys rotate` in a process of its own. */
const rotate = async (...flags: string[]) => {
  const r = await cliProcess(['keys', 'rotate', ...flags, '--json', '--config', fleet.configPath]);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as {
    active: Record<string, string>;
    next: Record<string, string> | null;
    promoted: boolean;
  };
};

describe('signing keys on three instances sharing one PostgreSQL database', () => {
  test('a published key reaches every instance before any of them signs with it', async () => {
    const before = await Promise.all(fleet.urls.map(publishedKids));
    for (const kids of before) expect(kids).toEqual(before[0]!);
    const oldKid = decodeProtectedHeader(await idTokenFrom(0)).kid!;

    // Publish: every instance lists the next keys within a second, and still signs with the old one.
    const published = await rotate();
    expect(published.promoted).toBe(false);
    const nextRs = published.next!.RS256!;
    await waitFor(
      'every instance publishes the next keys',
      async () => (await Promise.all(fleet.urls.map(publishedKids))).every((k) => k.includes(nextRs)),
      1_000,
    );
    for (let i = 0; i < 3; i++) expect(decodeProtectedHeader(await idTokenFrom(i)).kid).toBe(oldKid);

    // Promote: every instance signs with the new key from its next request on (the key set's cache
    // version is read per request), a key every JWKS already lists; the old key stays published.
    const promoted = await rotate('--now');
    expect(promoted.promoted).toBe(true);
    expect(promoted.active.RS256).toBe(nextRs);
    for (const base of fleet.urls) {
      const set = createLocalJWKSet(await jwks(base));
      for (let i = 0; i < 3; i++) {
        const { protectedHeader } = await jwtVerify(await idTokenFrom(i), set);
        expect(protectedHeader.kid).toBe(nextRs);
      }
      expect(await publishedKids(base)).toContain(oldKid);
    }
  }, 90_000);

  test('rotations started at once from three processes run one after another, each whole', async () => {
    const results = await Promise.all([rotate('--now'), rotate('--now'), rotate('--now')]);
    // Each rotation promoted a set of its own: none found its next keys taken by another halfway.
    expect(results.map((r) => r.promoted)).toEqual([true, true, true]);
    expect(new Set(results.map((r) => r.active.RS256)).size).toBe(3);

    const db = await openDb(fleet.dbUrl);
    try {
      const active = db.sql
        .prepare<{ kid: string; alg: string }>("SELECT kid, alg FROM signing_keys WHERE state = 'active'")
        .all();
      expect(active.map((k) => k.alg).sort()).toEqual(['ES256', 'EdDSA', 'RS256']);
      // The last rotation to finish left the active keys.
      expect(results.map((r) => r.active.RS256)).toContain(active.find((k) => k.alg === 'RS256')!.kid);
      const next = db.sql
        .prepare<{ alg: string; n: number }>(
          "SELECT alg, count(*)::int AS n FROM signing_keys WHERE state = 'next' GROUP BY alg ORDER BY alg",
        )
        .all();
      expect(next).toEqual([
        { alg: 'ES256', n: 1 },
        { alg: 'EdDSA', n: 1 },
        { alg: 'RS256', n: 1 },
      ]);
      // A second active key of an algorithm is refused by the database itself, whoever writes it.
      const rs = active.find((k) => k.alg === 'RS256')!;
      expect(() =>
        db.sql.exec(
          `UPDATE signing_keys SET state = 'active' WHERE alg = 'RS256' AND state = 'next' AND kid <> '${rs.kid}'`,
        ),
      ).toThrow(/unique|duplicate/i);
    } finally {
      db.close();
    }
  }, 90_000);

  test('an instance on a keys directory other than the fleet’s refuses to start, saying what is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verity-otherkeys-'));
    try {
      const other = await cliProcess(['serve', '--config', fleet.configPath], {
        env: { VERITY_KEYS_DIR: dir },
      });
      expect(other.code).not.toBe(0);
      expect(other.stderr).toContain('does not belong to this database');
      expect(other.stderr).toContain('pairwise secret');
      expect(other.stderr).toContain('webhook secret key');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
