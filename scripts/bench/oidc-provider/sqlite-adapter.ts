import Database from 'better-sqlite3';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/**
 * node-oidc-provider's storage in one SQLite table (better-sqlite3), with Verity's settings (WAL,
 * `synchronous = FULL`): every model keyed by its name and id, with the secondary keys the provider
 * looks up (session uid, device user code, grant id) indexed. Expired rows are not returned.
 */
export function sqliteAdapter(path: string): (model: string) => Adapter {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS models (
      model TEXT NOT NULL, id TEXT NOT NULL, payload TEXT NOT NULL,
      grant_id TEXT, user_code TEXT, uid TEXT, expires_at INTEGER,
      PRIMARY KEY (model, id)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS models_grant ON models (grant_id) WHERE grant_id IS NOT NULL;
    CREATE INDEX IF NOT EXISTS models_uid ON models (model, uid) WHERE uid IS NOT NULL;
    CREATE INDEX IF NOT EXISTS models_user_code ON models (model, user_code) WHERE user_code IS NOT NULL;`);
  const upsert = db.prepare(
    `INSERT INTO models (model, id, payload, grant_id, user_code, uid, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
       user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
  );
  const live = '(expires_at IS NULL OR expires_at > ?)';
  const byId = db.prepare(`SELECT payload FROM models WHERE model = ? AND id = ? AND ${live}`);
  const byUid = db.prepare(`SELECT payload FROM models WHERE model = ? AND uid = ? AND ${live}`);
  const byUserCode = db.prepare(`SELECT payload FROM models WHERE model = ? AND user_code = ? AND ${live}`);
  const consume = db.prepare(
    "UPDATE models SET payload = json_set(payload, '$.consumed', ?) WHERE model = ? AND id = ?",
  );
  const destroy = db.prepare('DELETE FROM models WHERE model = ? AND id = ?');
  const revoke = db.prepare('DELETE FROM models WHERE grant_id = ?');
  const payload = (row: unknown) =>
    row ? (JSON.parse((row as { payload: string }).payload) as AdapterPayload) : undefined;

  return (model) => ({
    async upsert(id, data, expiresIn) {
      const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : null;
      upsert.run(
        model,
        id,
        JSON.stringify(data),
        data.grantId ?? null,
        data.userCode ?? null,
        data.uid ?? null,
        expiresAt,
      );
    },
    async find(id) {
      return payload(byId.get(model, id, Date.now()));
    },
    async findByUid(uid) {
      return payload(byUid.get(model, uid, Date.now()));
    },
    async findByUserCode(userCode) {
      return payload(byUserCode.get(model, userCode, Date.now()));
    },
    async consume(id) {
      consume.run(Math.floor(Date.now() / 1000), model, id);
    },
    async destroy(id) {
      destroy.run(model, id);
    },
    async revokeByGrantId(grantId) {
      revoke.run(grantId);
    },
  });
}
