import { afterEach, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordAudit } from '../../src/audit/audit.store.ts';
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import { tablesInCopyOrder } from '../../src/db/copy.ts';
import { migrate } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations.gen.ts';
import { type Db, openDb } from '../../src/db/open.ts';
import { silentLogger } from '../../src/log.ts';
import { type FixedClock, fixedClock } from '../../src/platform/clock.ts';
import { startServer } from '../../src/server.ts';
import { createTestApp } from '../helpers/apps.ts';
import { cli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/context.ts';
import { freePort } from '../helpers/port.ts';
import { freshDatabaseUrl, postgresAvailable } from '../helpers/postgres.ts';
import { inProcess, REDIRECT } from '../oauth/fixtures.ts';
import { bearer, issueToken } from '../userinfo/fixtures.ts';
import { enqueueConsentEvent, LOCALHOST_OK, owner, sandboxEndpoint } from '../webhooks/fixtures.ts';

// The copy always reads SQLite and writes PostgreSQL, whichever engine the rest of the suite runs on.
let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** A config of its own: the SQLite file and keys in `dir`, and PostgreSQL at `url` when given. */
const toml = (dir: string, port: number, url?: string) =>
  `[database]\npath = "${join(dir, 'verity.db')}"\n${url ? `url = "${url}"\n` : ''}[keys]\ndir = "${join(dir, 'keys')}"\n` +
  `[server]\nlisten = "127.0.0.1:${port}"\nbase_url = "http://localhost:${port}"\n${LOCALHOST_OK}\n`;

interface Populated {
  dir: string;
  file: string;
  clock: FixedClock;
  accessToken: string;
  userinfo: unknown;
  jwks: unknown;
}

/** A SQLite database with apps, persons, consents, tokens, developers, webhook events and audit rows. */
async function populatedSqlite(): Promise<Populated> {
  const tmp = tempDir('verity-copy');
  cleanups.push(tmp.cleanup);
  const clock = fixedClock(Date.UTC(2026, 5, 1, 12));
  const port = await freePort();
  const ctx = await createContext(parseConfig(toml(tmp.dir, port)), { clock, log: silentLogger });
  try {
    const app = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: [REDIRECT],
      webOrigins: ['https://app.example'],
      scopes: 'openid email profile',
    });
    const issued = await issueToken(ctx, app, { scopes: ['openid', 'email'], personId: 'psn_sandbox_ada' });
    const o = await owner(ctx);
    await sandboxEndpoint(ctx, o, 'http://127.0.0.1:9/hook');
    enqueueConsentEvent(ctx, o, 'consent.granted');
    for (let i = 0; i < 3; i++) recordAudit(ctx.db, clock, { actor: 'cli', action: `test.${i}` });
    // An id SQLite gave and then lost: PostgreSQL must not hand it out again.
    ctx.db.sql.exec('DELETE FROM audit_log WHERE id = (SELECT max(id) FROM audit_log)');
    const res = await inProcess(ctx)('/v1/userinfo', bearer(issued.accessToken));
    expect(res.status).toBe(200);
    return {
      dir: tmp.dir,
      file: join(tmp.dir, 'verity.db'),
      clock,
      accessToken: issued.accessToken,
      userinfo: await res.json(),
      jwks: JSON.parse(await ctx.keys.jwksBody()),
    };
  } finally {
    ctx.keys.close();
    ctx.db.close();
  }
}

/** Every row of every copied table, in a stable order: what a copy must carry over unchanged. */
function dump(db: Db): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of tablesInCopyOrder()) {
    const rows = db.sql.prepare(`SELECT ${t.columns.map((c) => `"${c}"`).join(', ')} FROM "${t.name}"`).all();
    out[t.name] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/** The PostgreSQL database as a copy could change it: its tables, their rows, migrations and cache versions. */
async function snapshot(url: string) {
  const db = await openDb(url);
  try {
    const tables = db.sql
      .prepare<{ name: string }>(
        'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1',
      )
      .all()
      .map((r) => r.name);
    const all = (table: string, sql: string) => (tables.includes(table) ? db.sql.prepare(sql).all() : []);
    return {
      tables,
      rows: tables.includes('audit_log') ? dump(db) : {},
      migrations: all('_migrations', 'SELECT name, applied_at FROM _migrations ORDER BY name'),
      caches: all('cache_versions', 'SELECT name, version FROM cache_versions ORDER BY name'),
    };
  } finally {
    db.close();
  }
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe.skipIf(!postgresAvailable())('verity db copy', () => {
  test('copies every row; a server on PostgreSQL with the same keys answers the old token', async () => {
    const src = await populatedSqlite();
    const url = freshDatabaseUrl();
    const before = sha256(src.file);

    const r = await cli('db', 'copy', '--from', `sqlite:${src.file}`, '--to', url, '--json');
    expect(r.code).toBe(0);
    expect(r.json.match).toBe(true);
    expect(r.json.keysCopied).toBe(false);
    for (const t of r.json.tables) expect(t.target).toBe(t.source);
    const counted = Object.fromEntries(
      r.json.tables.map((t: { table: string; source: number }) => [t.table, t.source]),
    );
    const populated = ['persons', 'consents', 'access_tokens', 'webhook_events', 'webhook_deliveries'];
    populated.push(
      'webhook_secrets',
      'audit_log',
      'signing_keys',
      'developers',
      'redirect_uris',
      'web_origins',
    );
    for (const table of populated) expect({ table, rows: counted[table] > 0 }).toEqual({ table, rows: true });
    expect(r.json.tables.map((t: { table: string }) => t.table).sort()).toEqual(
      tablesInCopyOrder()
        .map((t) => t.name)
        .sort(),
    );
    // The source was only read.
    expect(sha256(src.file)).toBe(before);

    const sqlite = await openDb(src.file);
    const pg = await openDb(url);
    cleanups.push(() => pg.close());
    expect(dump(pg)).toEqual(dump(sqlite));
    sqlite.close();
    // Ids go on past the copied ones, and past one SQLite gave to a row since deleted.
    recordAudit(pg, src.clock, { actor: 'cli', action: 'after.copy' });
    const ids = pg.sql.prepare<{ id: number }>('SELECT id FROM audit_log ORDER BY id').all();
    expect(ids.at(-1)!.id).toBe(ids.at(-2)!.id + 2);

    const port = await freePort();
    const server = await startServer(parseConfig(toml(src.dir, port, url)), {
      clock: src.clock,
      log: silentLogger,
      jobs: false,
    });
    cleanups.push(() => server.stop());
    const base = `http://127.0.0.1:${port}`;
    const userinfo = await fetch(`${base}/v1/userinfo`, bearer(src.accessToken));
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toEqual(src.userinfo);
    expect(await (await fetch(`${base}/.well-known/jwks.json`)).json()).toEqual(src.jwks);
  }, 60_000);

  test('a target that holds rows is refused and left as it was; --replace copies over it', async () => {
    const src = await populatedSqlite();
    const url = freshDatabaseUrl();
    const first = await cli('db', 'copy', '--from', `sqlite:${src.file}`, '--to', url);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^ {2}access_tokens +1 +1$/m);
    expect(first.stdout).toContain('every count matches');
    expect(first.stdout).toContain('The keys directory and the secrets were not copied or changed');

    const sqlite = await openDb(src.file);
    recordAudit(sqlite, src.clock, { actor: 'cli', action: 'after.first.copy' });
    sqlite.close();
    const held = await snapshot(url);
    const again = await cli('db', 'copy', '--from', `sqlite:${src.file}`, '--to', url);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already holds rows (in developers, applications,');
    expect(again.stderr).toContain('pass --replace to delete them first');
    expect(again.stderr).not.toMatch(/^\s+at /m);
    expect(await snapshot(url)).toEqual(held);

    const replaced = await cli(
      'db',
      'copy',
      '--from',
      `sqlite:${src.file}`,
      '--to',
      url,
      '--replace',
      '--json',
    );
    expect(replaced.code).toBe(0);
    expect(replaced.json.replaced).toBe(true);
    const audit = replaced.json.tables.find((t: { table: string }) => t.table === 'audit_log');
    expect(audit.target).toBe(audit.source);
    expect(audit.target).toBe(held.rows.audit_log!.length + 1);
  }, 60_000);

  test('a source with pending migrations is refused and the target stays empty', async () => {
    const tmp = tempDir('verity-copy');
    cleanups.push(tmp.cleanup);
    const file = join(tmp.dir, 'verity.db');
    const old = await openDb(file);
    migrate(old, fixedClock(0), { migrations: migrations.slice(0, 5) });
    old.close();
    const url = freshDatabaseUrl();
    const r = await cli('db', 'copy', '--from', `sqlite:${file}`, '--to', url);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file} needs migrations (${migrations[5]!.name},`);
    expect(r.stderr).toContain('run "verity migrate"');
    expect((await snapshot(url)).tables).toEqual([]);
  }, 30_000);

  test('a source a server has open is refused', async () => {
    const src = await populatedSqlite();
    const running = await openDb(src.file);
    cleanups.push(() => running.close());
    const url = freshDatabaseUrl();
    const r = await cli('db', 'copy', '--from', `sqlite:${src.file}`, '--to', url);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is open in another process: stop the server before copying');
    expect((await snapshot(url)).tables).toEqual([]);
  }, 30_000);

  test('counts that differ roll the whole copy back and exit 1', async () => {
    const src = await populatedSqlite();
    const url = freshDatabaseUrl();
    // A trigger of the operator's own on the target writes a row the source does not have.
    const target = await openDb(url);
    migrate(target, src.clock);
    target.sql.exec(`CREATE FUNCTION extra_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO rate_limit_buckets VALUES ('trigger:extra', 0, 1); RETURN NULL; END; $$`);
    target.sql.exec(
      'CREATE TRIGGER extra_row AFTER INSERT ON persons FOR EACH STATEMENT EXECUTE FUNCTION extra_row()',
    );
    target.close();
    const held = await snapshot(url);

    const r = await cli('db', 'copy', '--from', `sqlite:${src.file}`, '--to', url, '--json');
    expect(r.code).toBe(1);
    expect(r.json.match).toBe(false);
    const buckets = r.json.tables.find((t: { table: string }) => t.table === 'rate_limit_buckets');
    expect(buckets.target).toBe(buckets.source + 1);
    expect(await snapshot(url)).toEqual(held);

    const human = await cli('db', 'copy', '--from', `sqlite:${src.file}`, '--to', url);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^! rate_limit_buckets +\d+ +\d+$/m);
    expect(human.stdout).toContain('the copy was rolled back');
  }, 60_000);

  test('an unreachable target is named without its password, no stack trace', async () => {
    const tmp = tempDir('verity-copy');
    cleanups.push(tmp.cleanup);
    const file = join(tmp.dir, 'verity.db');
    const db = await openDb(file);
    migrate(db, fixedClock(0));
    db.close();
    const port = await freePort();
    const r = await cli(
      'db',
      'copy',
      '--from',
      `sqlite:${file}`,
      '--to',
      `postgres://verity:pg-s3cret@127.0.0.1:${port}/x`,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `verity: postgres://verity:***@127.0.0.1:${port}/x: cannot connect to PostgreSQL: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
  }, 30_000);

  test('--from and --to must name the engines', async () => {
    const bad = await cli('db', 'copy', '--from', '/tmp/verity.db', '--to', 'postgres://x@127.0.0.1/x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from must be sqlite:PATH');
    const notPg = await cli('db', 'copy', '--from', 'sqlite:/tmp/verity.db', '--to', '/tmp/other.db');
    expect(notPg.code).toBe(2);
    expect(notPg.stderr).toContain('--to must be a postgres:// or postgresql:// URL');
  });
});
