import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

/** One throwaway PostgreSQL server for a test process, or for all of a suite's (postgres-suite.ts). */
export interface PostgresCluster {
  host: '127.0.0.1';
  port: number;
  socketDir: string;
  url(db: string): string;
}

let bin: string | null | undefined;

/** The directory holding initdb and pg_ctl: `pg_config --bindir`, else the newest Debian install. */
function binDir(): string | null {
  if (bin !== undefined) return bin;
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const candidates = fromConfig.status === 0 ? [fromConfig.stdout.trim()] : [];
  // Debian installs each major version side by side and puts none of the server binaries on PATH.
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
    candidates.push(...versions.map((v) => join(debian, v, 'bin')));
  }
  bin = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) ?? null;
  return bin;
}

/** Whether a PostgreSQL server can be started here (so a suite can say why it does not run). */
export function postgresAvailable(): boolean {
  return binDir() !== null;
}

// initdb and the server refuse to run as root; the Debian package creates the `postgres` user for them.
const asRoot = process.getuid?.() === 0;
/** The command line of a PostgreSQL program, run as the server user. */
const serverCommand = (program: string, ...args: string[]) => {
  const argv = [join(binDir()!, program), ...args];
  return asRoot ? ['runuser', '-u', 'postgres', '--', ...argv] : argv;
};

/** Runs a PostgreSQL program to completion from `cwd` (which the server user can enter). */
function run(cwd: string, program: string, ...args: string[]) {
  const [cmd, ...argv] = serverCommand(program, ...args);
  const r = spawnSync(cmd!, argv, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error) throw r.error;
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

/**
 * Stops the server and removes `dir` once this process is gone, however it ends: `bun test` runs no
 * `exit` listeners, and a killed process none at all. The watchdog looks for this process once a
 * second. It is no child of this process but a session of its own: `bun test` kills the processes a
 * test spawned when it times out, and `bun test --parallel` those a file spawned, and a terminal's
 * Ctrl-C would reach it too.
 */
function stopWhenProcessEnds(dir: string, data: string) {
  const stop = serverCommand('pg_ctl', '-D', data, 'stop', '-m', 'immediate');
  const script = 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; shift; "$@"; rm -rf "$0"';
  spawnSync('setsid', ['-f', 'sh', '-c', script, dir, String(process.pid), ...stop], {
    cwd: dir,
    stdio: 'ignore',
  });
}

const CLUSTER_PREFIX = 'verity-pg-';
/** A left-behind server directory on its way out. */
const REMOVING_PREFIX = '.verity-pg-removing-';

/** Whether the server of a data directory runs: its postmaster.pid names a live process. */
function serverRuns(data: string): boolean {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(join(data, 'postmaster.pid'), 'utf8'), 10);
  } catch {
    return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, and another user's
  }
}

/**
 * Removes the server directories in `parent` that a test process left behind: one killed with its
 * watchdog before the watchdog's removal finished (a whole session stopped at once) leaves gigabytes,
 * a database per test. A directory younger than `minAgeMs` is let be, since it may still be starting.
 * Each is renamed at once, so no other process takes it for a server's, and deleted in the background
 * (as the watchdog does, out of reach of `bun test --parallel`), so no test waits for it.
 */
export function removeLeftClusters(parent = tmpdir(), minAgeMs = 10 * 60_000): string[] {
  const removing: string[] = [];
  for (const name of readdirSync(parent)) {
    const dir = join(parent, name);
    try {
      if (name.startsWith(REMOVING_PREFIX)) removing.push(dir); // a removal that was cut short
      if (!name.startsWith(CLUSTER_PREFIX)) continue;
      if (Date.now() - statSync(dir).mtimeMs < minAgeMs || serverRuns(join(dir, 'data'))) continue;
      const renamed = join(parent, REMOVING_PREFIX + name.slice(CLUSTER_PREFIX.length));
      renameSync(dir, renamed);
      removing.push(renamed);
    } catch {
      // Another process took it first.
    }
  }
  if (removing.length > 0) {
    spawn('sh', ['-c', 'rm -rf "$@" &', 'sh', ...removing], { detached: true, stdio: 'ignore' }).unref();
  }
  return removing;
}

// Below Linux's ephemeral range (32768+), so no port the OS hands to `freePort` can clash with it.
const randomPort = () => 15000 + Math.floor(Math.random() * 17000);

let cluster: PostgresCluster | undefined;

/**
 * Names the server (and its migrated template) that a parent process started for the test processes
 * it runs, as `port:directory`: see postgres-suite.ts, which runs a suite's files on every core.
 */
const SHARED = 'VERITY_TEST_POSTGRES';

const clusterAt = (port: number, socketDir: string): PostgresCluster => ({
  host: '127.0.0.1',
  port,
  socketDir,
  url: (db) => `postgres://postgres@127.0.0.1:${port}/${db}`,
});

/**
 * The PostgreSQL server of this process: the one its parent shares, or one it starts on first call
 * (synchronously: TOML builders are) and reuses.
 */
export function postgresCluster(): PostgresCluster {
  if (cluster) return cluster;
  const shared = process.env[SHARED];
  if (shared) {
    const at = shared.indexOf(':');
    cluster = clusterAt(Number(shared.slice(0, at)), shared.slice(at + 1));
    return cluster;
  }
  if (!postgresAvailable()) {
    throw new Error(
      'PostgreSQL is not installed: no initdb from `pg_config --bindir` or /usr/lib/postgresql/*/bin (apt-get install postgresql)',
    );
  }
  removeLeftClusters();
  const dir = mkdtempSync(join(tmpdir(), CLUSTER_PREFIX));
  const data = join(dir, 'data');
  const log = join(dir, 'log');
  if (asRoot) spawnSync('chown', ['postgres:postgres', dir]);
  const fail = (what: string) => {
    rmSync(dir, { recursive: true, force: true });
    return new Error(`PostgreSQL ${what}`);
  };
  const init = run(dir, 'initdb', '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C');
  if (!init.ok) throw fail(`initdb failed:\n${init.output}`);

  for (let attempt = 1; ; attempt++) {
    const port = randomPort();
    if (existsSync(log)) truncateSync(log);
    const options = `-p ${port} -k '${dir}' -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
    const start = run(dir, 'pg_ctl', '-D', data, '-l', log, '-w', 'start', '-o', options);
    if (start.ok) {
      stopWhenProcessEnds(dir, data);
      cluster = clusterAt(port, dir);
      return cluster;
    }
    const serverLog = existsSync(log) ? readFileSync(log, 'utf8') : '';
    // Another program took the port between our pick and the server's bind: try another one.
    if (serverLog.includes('Address already in use') && attempt < 5) continue;
    throw fail(`did not start:\n${start.output}\n${serverLog}`);
  }
}

/**
 * Starts this process's server and migrates its template, and says how the test processes it runs
 * reach both (their environment).
 */
export function shareCluster(): Record<string, string> {
  migrateTemplate();
  const { port, socketDir } = postgresCluster();
  return { [SHARED]: `${port}:${socketDir}` };
}

// Unique across the processes that share a server, and across the files of one process (a parallel
// worker starts each file with its modules afresh).
const databaseName = () => `test_${crypto.randomUUID().replaceAll('-', '')}`;

/** createdb's arguments for a database in the process's cluster, empty or a copy of `template`. */
function createdbArgs(name: string, template?: string): string[] {
  const { port } = postgresCluster();
  const copy = template ? ['-T', template] : [];
  return ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', ...copy, name];
}

function createDatabase(name: string, template?: string): string {
  const made = run(postgresCluster().socketDir, 'createdb', ...createdbArgs(name, template));
  if (!made.ok) throw new Error(`createdb ${name} failed:\n${made.output}`);
  return postgresCluster().url(name);
}

/** A new, empty database in the process's cluster; every test gets its own. */
export function freshDatabaseUrl(): string {
  return createDatabase(databaseName());
}

const TEMPLATE = 'template_migrated';
// A shared server's template was migrated by the process that shares it.
let migrated = Boolean(process.env[SHARED]);
/** Migrated copies made in the background while a test runs, so the next one need not wait. */
const copies: string[] = [];
let copying = 0;
const AHEAD = 2;

function copyAhead(): void {
  while (copies.length + copying < AHEAD) {
    const name = databaseName();
    copying++;
    const [cmd, ...argv] = serverCommand('createdb', ...createdbArgs(name, TEMPLATE));
    const child = spawn(cmd!, argv, { cwd: postgresCluster().socketDir, stdio: 'ignore' });
    const done = (ok: boolean) => {
      copying--;
      if (ok) copies.push(name);
    };
    child.on('error', () => done(false));
    child.on('exit', (code) => done(code === 0));
  }
}

/**
 * A new database with the shipped migrations applied: a copy of a template migrated once per server
 * (by migrate-template.ts, in a process of its own, since this is synchronous), which saves each
 * test context the migrations' hundreds of round trips.
 */
export function migratedDatabaseUrl(): string {
  migrateTemplate();
  const ready = copies.shift();
  copyAhead();
  return ready ? postgresCluster().url(ready) : createDatabase(databaseName(), TEMPLATE);
}

let admin: postgres.Sql | undefined;

/**
 * Drops a database no test uses any more, in the background: dropped within seconds of its making,
 * most of its pages never reach the disk (a run makes about a thousand, 9 MB each). One that is still
 * in use is left be.
 */
export function dropDatabaseLater(url: string): void {
  admin ??= postgres(postgresCluster().url('postgres'), { max: 1, idle_timeout: 1, onnotice: () => {} });
  const name = new URL(url).pathname.slice(1);
  admin.unsafe(`DROP DATABASE IF EXISTS "${name}"`).catch(() => {});
}

function migrateTemplate(): void {
  if (migrated) return;
  const url = createDatabase(TEMPLATE);
  const r = spawnSync(process.execPath, [join(import.meta.dir, 'migrate-template.ts'), url], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`migrating the template database failed:\n${r.stdout}${r.stderr}`);
  migrated = true;
}
