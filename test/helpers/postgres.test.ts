import { afterAll, describe, expect, test } from 'bun:test';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import postgres from 'postgres';
import { freshDatabaseUrl, postgresAvailable, postgresCluster } from './postgres.ts';
import { waitFor } from './wait.ts';

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

  // `bun test` runs no exit listeners and a killed process none at all: the server must go regardless.
  test('stops and disappears when the process that started it is killed', async () => {
    const script = `import { freshDatabaseUrl, postgresCluster } from ${JSON.stringify(`${import.meta.dir}/postgres.ts`)};
      console.log(JSON.stringify({ dir: postgresCluster().socketDir, url: freshDatabaseUrl() }));
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = await once(createInterface({ input: child.stdout! }), 'line');
    const { dir, url } = JSON.parse(line) as { dir: string; url: string };
    const [alive] = await connect(url)`select 1 as one`;
    expect(alive).toEqual({ one: 1 });

    child.kill('SIGKILL');
    await waitFor('the server directory to be removed', () => !existsSync(dir), 10_000);
    await expect(connect(url)`select 1`).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  }, 20_000);
});
