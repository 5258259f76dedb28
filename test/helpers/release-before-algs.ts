import { join } from 'node:path';
import { migrate } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations.gen.ts';
import { openDb } from '../../src/db/open.ts';
import { keyFiles } from '../../src/keys/key-files.ts';
import { type FixedClock, unix } from '../../src/platform/clock.ts';

/** The migration that brought several signing algorithms (signing_keys.alg). */
export const SIGNING_ALGS_MIGRATION = migrations.findIndex((m) => m.name.endsWith('_signing_algs'));

/**
 * `dir/verity.db` and `dir/keys` as the release before several signing algorithms wrote them: the
 * schema up to that migration and one active RS256 key. Returns its kid.
 */
export async function releaseBeforeSigningAlgs(dir: string, clock: FixedClock): Promise<string> {
  const db = await openDb(join(dir, 'verity.db'));
  migrate(db, clock, { migrations: migrations.slice(0, SIGNING_ALGS_MIGRATION) });
  const { kid } = await keyFiles(join(dir, 'keys')).generate('RS256', unix(clock), 'the-release-before');
  db.sql
    .prepare("INSERT INTO signing_keys (kid, state, created_at, activated_at) VALUES (?, 'active', ?, ?)")
    .run(kid, unix(clock), unix(clock));
  db.close();
  return kid;
}
