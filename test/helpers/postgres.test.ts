import { afterAll, describe, expect, test } from 'bun:test';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import postgres from 'postgres';
import { postgresMigrations } from '../../src/db/migrations.gen.ts';
import { tempDir, testDatabase, useDatabaseOf, useMigratedDatabase } from './context.ts';
import {
  freshDatabaseUrl,
  migratedDatabaseUrl,
  postgresAvailable,
  postgresCluster,
  removeLeftClusters,
  shareCluster,
} from './postgres.ts';
import { waitFor } from './wait.ts';

// The environment of a process that starts a server of its own, not the suite's shared one.
const { VERITY_TEST_POSTGRES: _, ...ownServer } = process.env;

// In CI PostgreSQL is installed, so a missing one must fail these tests rather than skip them.
const skip = !postgresAvailable() && !process.env.CI;
if (skip) console.warn('PostgreSQL tests skipped: no PostgreSQL installed (apt-get install postgresql)');

describe.skipIf(skip)('the test PostgreSQL server', () => {
  const clients: postgres.Sql[] = [];
  const connect = (url: string) => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    clients.push(sql);
    return sql;
  };
  afterAll(() => Promise.all(clients.map((sql) => sql.end())));
  const shipped = postgresMigrations.map((m) => m.name).sort();
  const applied = async (url: string) =>
    (await connect(url)`select name from _migrations order by name`).map((r) => r.name);

  test('is one server per process, listening on 127.0.0.1 at its port', async () => {
    const cluster = postgresCluster();
    expect(postgresCluster()).toBe(cluster);
    expect(cluster.url('x')).toBe(`postgres://postgres@127.0.0.1:${cluster.port}/x`);

    const sql = connect(freshDatabaseUrl());
    const [where] = await sql`select host(inet_server_addr()) as host, inet_server_port() as port`;
    expect(where).toEqual({ host: '127.0.0.1', port: cluster.port });
  });

  test('gives every caller its own empty database', async () => {
    const [urlA, urlB] = [freshDatabaseUrl(), freshDatabaseUrl()];
    expect(urlA).not.toBe(urlB);
    const [a, b] = [connect(urlA), connect(urlB)];
    const tables = async (sql: postgres.Sql) =>
      (await sql`select tablename from pg_tables where schemaname = 'public'`).map((r) => r.tablename);

    await a`create table grants (id text primary key)`;
    await a`insert into grants values ('g1')`;

    expect(await tables(a)).toEqual(['grants']);
    expect(await tables(b)).toEqual([]);
    await expect(b`select * from grants`).rejects.toThrow('relation "grants" does not exist');
  });

  test('gives every caller of a migrated database its own copy, with every migration applied', async () => {
    const urls = [migratedDatabaseUrl(), migratedDatabaseUrl(), migratedDatabaseUrl(), migratedDatabaseUrl()];
    expect(new Set(urls).size).toBe(4);
    expect(await applied(urls[0]!)).toEqual(shipped);
    const [a, b] = [connect(urls[0]!), connect(urls[3]!)];

    await a`insert into rate_limit_buckets (key, window_start, count) values ('k', 0, 1)`;
    expect(await a`select key from rate_limit_buckets`).toHaveLength(1);
    expect(await b`select key from rate_limit_buckets`).toHaveLength(0);
  });

  test("drops a test directory's database at its cleanup, unless another directory uses it too", async () => {
    const exists = async (url: string) => {
      const name = new URL(url).pathname.slice(1);
      return (
        await connect(postgresCluster().url('postgres'))`select 1 from pg_database where datname = ${name}`
      ).length;
    };
    const urlOf = (dir: string) => testDatabase(dir, 'postgres');
    const [alone, first, second] = [tempDir(), tempDir(), tempDir()];
    useMigratedDatabase(alone.dir, 'postgres');
    useMigratedDatabase(first.dir, 'postgres');
    useDatabaseOf(second.dir, first.dir);
    const [aloneUrl, sharedUrl] = [urlOf(alone.dir), urlOf(first.dir)];
    expect(urlOf(second.dir)).toBe(sharedUrl);
    expect([await exists(aloneUrl), await exists(sharedUrl)]).toEqual([1, 1]);

    // Drops run in order on one connection: once the last is done, so are any of the shared one.
    for (const d of [first, second, alone]) d.cleanup();
    await waitFor('the database to be dropped', async () => (await exists(aloneUrl)) === 0, 5000);
    expect(await exists(sharedUrl)).toBe(1);
  }, 10_000);

  // How postgres-suite.ts runs a suite's files on every core.
  test('is shared with the processes it runs: they start none of their own and copy its template', async () => {
    const env = shareCluster();
    const script = `import { migratedDatabaseUrl, postgresCluster } from ${JSON.stringify(`${import.meta.dir}/postgres.ts`)};
      console.log(JSON.stringify({ dir: postgresCluster().socketDir, urls: [migratedDatabaseUrl(), migratedDatabaseUrl()] }));
      process.exit(0);`;
    const child = () =>
      Bun.spawn([process.execPath, '-e', script], { env: { ...process.env, ...env }, stderr: 'inherit' });
    const outputs = await Promise.all([child(), child()].map((c) => new Response(c.stdout).json()));
    for (const { dir } of outputs) expect(dir).toBe(postgresCluster().socketDir);
    const urls = outputs.flatMap((o) => o.urls as string[]);
    expect(new Set(urls).size).toBe(4);
    for (const url of urls) expect(await applied(url)).toEqual(shipped);
  });

  // A timeout ends a test by killing what it spawned: the watchdog must survive that, or the server
  // stops and every later test of the file fails with it.
  test('outlives a test that timed out', async () => {
    const dir = tempDir('pg-timeout');
    try {
      const file = join(dir.dir, 'timeout.test.ts');
      writeFileSync(
        file,
        `import { expect, test } from 'bun:test';
        import postgres from ${JSON.stringify(require.resolve('postgres'))};
        import { freshDatabaseUrl } from ${JSON.stringify(`${import.meta.dir}/postgres.ts`)};
        let url = '';
        test('makes a database', () => { url = freshDatabaseUrl(); });
        test('times out', () => Bun.sleep(2000), 300);
        test('connects after', async () => {
          const sql = postgres(url, { max: 1 });
          expect(await sql\`select 1 as one\`).toEqual([{ one: 1 }]);
          await sql.end();
        });`,
      );
      const run = Bun.spawn([process.execPath, 'test', file], {
        cwd: dir.dir,
        env: ownServer,
        stdout: 'pipe',
        stderr: 'pipe',
      });
      const output = (await new Response(run.stderr).text()) + (await new Response(run.stdout).text());
      expect(output).toContain('(fail) times out');
      expect(output).toContain('(pass) connects after');
    } finally {
      dir.cleanup();
    }
  }, 20_000);

  // `bun test` runs no exit listeners and a killed process none at all: the server must go regardless.
  test('stops and disappears when the process that started it is killed', async () => {
    const script = `import { freshDatabaseUrl, postgresCluster } from ${JSON.stringify(`${import.meta.dir}/postgres.ts`)};
      console.log(JSON.stringify({ dir: postgresCluster().socketDir, url: freshDatabaseUrl() }));
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['-e', script], {
      env: ownServer,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = await once(createInterface({ input: child.stdout! }), 'line');
    const { dir, url } = JSON.parse(line) as { dir: string; url: string };
    const [alive] = await connect(url)`select 1 as one`;
    expect(alive).toEqual({ one: 1 });

    child.kill('SIGKILL');
    await waitFor('the server directory to be removed', () => !existsSync(dir), 10_000);
    await expect(connect(url)`select 1`).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  }, 20_000);
});

// A session stopped as a whole can kill the watchdog before its removal is done: the next run clears up.
describe('server directories left behind', () => {
  test('are removed when their server is gone, and only then', async () => {
    const parent = tempDir('left-clusters');
    try {
      const exited = Bun.spawn(['true']);
      await exited.exited;
      const server = (name: string, pid: number | undefined, ageMs: number) => {
        const dir = join(parent.dir, name);
        mkdirSync(join(dir, 'data', 'base'), { recursive: true });
        if (pid !== undefined) writeFileSync(join(dir, 'data', 'postmaster.pid'), `${pid}\n${dir}/data\n`);
        const at = (Date.now() - ageMs) / 1000;
        utimesSync(dir, at, at);
      };
      const hour = 3_600_000;
      server('verity-pg-dead', exited.pid, hour);
      server('verity-pg-stopped', undefined, hour); // stopped, its removal cut short
      server('verity-pg-running', process.pid, hour);
      server('verity-pg-starting', undefined, 1000); // initdb still at work
      server('verity-other', exited.pid, hour);
      mkdirSync(join(parent.dir, '.verity-pg-removing-cut'));

      const removing = removeLeftClusters(parent.dir);
      expect(removing.map((d) => d.slice(parent.dir.length + 1)).sort()).toEqual([
        '.verity-pg-removing-cut',
        '.verity-pg-removing-dead',
        '.verity-pg-removing-stopped',
      ]);
      await waitFor('the left directories to be deleted', () => removing.every((d) => !existsSync(d)), 5000);
      expect(readdirSync(parent.dir).sort()).toEqual([
        'verity-other',
        'verity-pg-running',
        'verity-pg-starting',
      ]);
    } finally {
      parent.cleanup();
    }
  });
});
