import type { Db } from '../db/open.ts';
import type { SqlRow } from '../db/row.ts';
import type { signingKeys } from '../db/schema/keys.ts';
import type { SigningAlg } from './signing-algs.ts';

export type KeyState = 'next' | 'active' | 'retired';
export type KeyRow = SqlRow<typeof signingKeys>;

export function createKeyStore(db: Db) {
  return {
    list: () => db.sql.prepare<KeyRow>('SELECT * FROM signing_keys ORDER BY created_at, kid').all(),
    get: (kid: string) => db.sql.prepare<KeyRow>('SELECT * FROM signing_keys WHERE kid = ?').get(kid),
    active: (alg: SigningAlg = 'RS256') =>
      db.sql.prepare<KeyRow>("SELECT * FROM signing_keys WHERE state = 'active' AND alg = ?").get(alg),
    /** The active key of each algorithm that has one. */
    actives: () => db.sql.prepare<KeyRow>("SELECT * FROM signing_keys WHERE state = 'active'").all(),
    /** The oldest next key of each algorithm that has one: the set the next rotation promotes. */
    nextSet: () =>
      db.sql
        .prepare<KeyRow>(
          `SELECT * FROM signing_keys k WHERE state = 'next' AND kid = (SELECT kid FROM signing_keys n
             WHERE n.state = 'next' AND n.alg = k.alg ORDER BY created_at, kid LIMIT 1)`,
        )
        .all(),
    /** Retired keys whose tokens have all expired. */
    removable: (now: number) =>
      db.sql
        .prepare<KeyRow>(
          "SELECT * FROM signing_keys WHERE state = 'retired' AND remove_after <= ? ORDER BY kid",
        )
        .all(now),
    insert(row: KeyRow) {
      db.sql
        .prepare(
          `INSERT INTO signing_keys (kid, alg, state, created_at, activated_at, retired_at, remove_after,
             longest_lifetime) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          row.kid,
          row.alg,
          row.state,
          row.created_at,
          row.activated_at,
          row.retired_at,
          row.remove_after,
          row.longest_lifetime,
        );
    },
    setState(
      kid: string,
      state: KeyState,
      fields: Partial<Pick<KeyRow, 'activated_at' | 'retired_at' | 'remove_after'>>,
    ) {
      db.sql
        .prepare(
          'UPDATE signing_keys SET state = ?, activated_at = coalesce(?, activated_at), retired_at = coalesce(?, retired_at), remove_after = coalesce(?, remove_after) WHERE kid = ?',
        )
        .run(state, fields.activated_at ?? null, fields.retired_at ?? null, fields.remove_after ?? null, kid);
    },
    /** Raises `longest_lifetime` to `seconds` on every key that can still sign (next or active). */
    raiseLifetimes(seconds: number) {
      db.sql
        .prepare(
          `UPDATE signing_keys SET longest_lifetime = ?
           WHERE state <> 'retired' AND (longest_lifetime IS NULL OR longest_lifetime < ?)`,
        )
        .run(seconds, seconds);
    },
    delete(kid: string) {
      db.sql.prepare('DELETE FROM signing_keys WHERE kid = ?').run(kid);
    },
  };
}
export type KeyStore = ReturnType<typeof createKeyStore>;
