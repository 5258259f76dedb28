import { afterEach, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { fixedClock, unix } from '../../src/platform/clock.ts';
import { tempDir } from '../helpers/context.ts';
import { releaseBeforeSigningAlgs, SIGNING_ALGS_MIGRATION } from '../helpers/release-before-algs.ts';

const dirs: { cleanup(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

// On SQLite whichever engine the suite runs: PostgreSQL's migrations began after several algorithms.
test('a database from before several algorithms keeps its RS256 key and gets an EC and an Ed25519 key at start', async () => {
  const d = tempDir('verity-upgrade');
  dirs.push(d);
  const clock = fixedClock(Date.UTC(2026, 5, 1, 12));
  // The database and key file as the release before wrote them: schema up to 0008, one RS256 key.
  expect(SIGNING_ALGS_MIGRATION).toBeGreaterThan(0);
  const kid = await releaseBeforeSigningAlgs(d.dir, clock);

  clock.advance(86_400_000);
  const ctx = await createContext(
    parseConfig(`[database]\npath = "${join(d.dir, 'verity.db')}"\n[keys]\ndir = "${join(d.dir, 'keys')}"`),
    { clock, log: silentLogger },
  );
  try {
    expect(ctx.keys.store.active('RS256')).toMatchObject({
      kid,
      alg: 'RS256',
      activated_at: unix(clock) - 86_400,
    });
    for (const alg of ['ES256', 'EdDSA'] as const) {
      expect(ctx.keys.store.active(alg)).toMatchObject({ alg, activated_at: unix(clock) });
      expect((await ctx.keys.signingKey(alg)).alg).toBe(alg);
    }
    const jwks = JSON.parse(await ctx.keys.jwksBody()) as { keys: { kid: string; alg: string }[] };
    expect(jwks.keys.map((k) => k.alg)).toEqual(['RS256', 'ES256', 'EdDSA']);
    expect(jwks.keys[0]!.kid).toBe(kid);
    // The set then rotates as one, on the schedule of its oldest key.
    const { rotateDue } = await import('../../src/keys/rotation.ts');
    clock.advance(90 * 86_400_000);
    const r = await rotateDue(ctx);
    expect(r.published).toHaveLength(3);
  } finally {
    ctx.db.close();
  }
});
