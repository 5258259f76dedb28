import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * One real PostgreSQL server per test process, in a temp directory, started the first time a test
 * asks for a database and removed when the process exits. Each test gets a database of its own.
 */
export interface Cluster {
  host: string;
  port: number;
  dir: string;
}

/** Debian's binaries: `pg_config --bindir`, or the newest /usr/lib/postgresql/N/bin. */
function binDir(): string | undefined {
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const fromConfig = pgConfig.status === 0 ? pgConfig.stdout.trim() : '';
  if (fromConfig && existsSync(join(fromConfig, 'initdb'))) return fromConfig;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

export const postgresAvailable = () => binDir() !== undefined;

const asRoot = process.getuid?.() === 0;

/** initdb and the server refuse to run as root: as root they run as the `postgres` user. */
function run(bin: string, args: string[]): string {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** A port free a moment ago, found synchronously (a child process asks the OS for one). */
function freePortSync(): number {
  const r = spawnSync(
    process.execPath,
    [
      '-e',
      "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})",
    ],
    { encoding: 'utf8' },
  );
  return Number(r.stdout.trim());
}

let cluster: Cluster | undefined;

export function postgresCluster(): Cluster {
  if (cluster) return cluster;
  const bin = binDir();
  if (!bin) throw new Error('PostgreSQL is not installed (Debian package: postgresql; .ci/run installs it)');
  const dir = mkdtempSync(join(tmpdir(), 'verity-pg-'));
  if (asRoot) chownSync(dir, uidOf('postgres'), gidOf('postgres'));
  chmodSync(dir, 0o700);
  run(join(bin, 'initdb'), [
    '-D',
    join(dir, 'data'),
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  const stop = () => {
    spawnSync(asRoot ? 'runuser' : join(bin, 'pg_ctl'), [
      ...(asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl')] : []),
      ...['-D', join(dir, 'data'), '-m', 'immediate', 'stop'],
    ]);
    rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 1; ; attempt++) {
    const port = freePortSync();
    const options = [
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300`,
      // Durability is not under test here, speed is welcome.
      '-c fsync=off -c synchronous_commit=off -c full_page_writes=off',
    ].join(' ');
    try {
      run(join(bin, 'pg_ctl'), [
        '-D',
        join(dir, 'data'),
        '-l',
        join(dir, 'log'),
        '-w',
        '-o',
        options,
        'start',
      ]);
      cluster = { host: '127.0.0.1', port, dir };
      break;
    } catch (e) {
      // Another process may have taken the port in between; the log says so.
      if (attempt === 3) {
        rmSync(dir, { recursive: true, force: true });
        throw e;
      }
    }
  }
  process.on('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      stop();
      process.exit(130);
    });
  return cluster;
}

let databases = 0;

/** A new, empty database in the cluster, as a URL. */
export function freshDatabaseUrl(): string {
  const c = postgresCluster();
  const name = `verity_${process.pid}_${++databases}`;
  const bin = binDir()!;
  run(join(bin, 'createdb'), ['-h', c.host, '-p', String(c.port), '-U', 'postgres', name]);
  return `postgres://postgres@${c.host}:${c.port}/${name}`;
}

function uidOf(user: string): number {
  return Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
}
function gidOf(user: string): number {
  return Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());
}
