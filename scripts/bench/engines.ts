/**
 * Code exchanges on each engine, side by side (issue 20; why and how: scripts/bench/README.md):
 * SQLite with one instance, PostgreSQL with one, and PostgreSQL with several behind round-robin.
 *
 *   bun scripts/bench/engines.ts [--engine sqlite|postgres] [--instances 2] [--codes 6000]
 *                                [--warm-up 3000] [--connections 50] [--rounds 3]
 *
 * Without --engine every configuration runs: sqlite ×1, postgres ×1, postgres ×N. Each instance is a
 * `verity` server process (flow.ts's --server mode); the PostgreSQL server is a throwaway cluster in a
 * temp directory (test/helpers/postgres.ts). Nothing is pinned: the instances, PostgreSQL and this load
 * generator share the machine's cores, as they would on one VM; the rounds take turns between the
 * configurations so that drift in the machine's speed falls on all of them alike.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { freePort } from '../../test/helpers/port.ts';
import { freshDatabaseUrl } from '../../test/helpers/postgres.ts';
import { type HttpRequest, load, merge, type Result } from './load.ts';
import { waitReady } from './processes.ts';
import { benchToml, exchangeRequests, type Fixture, mintCodes } from './verity-fixture.ts';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const only = args.includes('--engine') ? args[args.indexOf('--engine') + 1] : undefined;
const instances = flag('instances', 2);
const codes = flag('codes', 6000);
const warmUp = flag('warm-up', 3000);
const connections = flag('connections', 50);
const rounds = flag('rounds', 3);

interface Setup {
  label: string;
  bases: string[];
  fixture: Fixture;
  stop(): void;
}

/** `n` servers on one database; the first one migrates it and makes the keys. */
async function start(label: string, engine: 'sqlite' | 'postgres', n: number): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'verity-engines-'));
  const url = engine === 'postgres' ? `url = "${freshDatabaseUrl()}"\n` : '';
  const ports = await Promise.all(Array.from({ length: n }, () => freePort()));
  const procs: ReturnType<typeof Bun.spawn>[] = [];
  const bases: string[] = [];
  for (const [i, port] of ports.entries()) {
    // One issuer for the fleet, as behind a load balancer; each instance listens on its own port.
    const toml = benchToml(dir, ports[0]!)
      .replace(`listen = "127.0.0.1:${ports[0]}"`, `listen = "127.0.0.1:${port}"`)
      .replace('[database]\n', `[database]\n${url}`);
    const configPath = join(dir, `verity-${i}.toml`);
    writeFileSync(configPath, toml);
    procs.push(
      Bun.spawn([process.execPath, join(import.meta.dir, 'flow.ts'), '--server', configPath, String(port)], {
        stdout: 'ignore',
        stderr: 'inherit',
      }),
    );
    bases.push(`http://127.0.0.1:${port}`);
    await waitReady(`${bases[i]}/healthz`);
  }
  const config = parseConfig(readFileSync(join(dir, 'verity-0.toml'), 'utf8'));
  const ctx = await createContext(config, { log: silentLogger, migrate: false });
  const fixture = await mintCodes(ctx, warmUp + rounds * codes);
  ctx.db.close();
  return {
    label,
    bases,
    fixture,
    stop() {
      for (const p of procs) p.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The setup's next `count` codes, exchanged round-robin over its instances. */
function exchanges(s: Setup, count: number): () => HttpRequest | undefined {
  const batch = s.fixture.codes.splice(0, count);
  const perInstance = s.bases.map((base, i) =>
    exchangeRequests(base, { ...s.fixture, codes: batch.filter((_, j) => j % s.bases.length === i) }),
  );
  let turn = 0;
  return () => {
    for (let tried = 0; tried < perInstance.length; tried++) {
      const req = perInstance[turn++ % perInstance.length]!();
      if (req) return req;
    }
    return undefined;
  };
}

const plans: [string, 'sqlite' | 'postgres', number][] = [
  ['SQLite, 1 instance', 'sqlite', 1],
  ['PostgreSQL, 1 instance', 'postgres', 1],
  [`PostgreSQL, ${instances} instances`, 'postgres', instances],
];
const chosen = plans.filter(
  ([, engine, n]) => !only || (engine === only && (only === 'sqlite' || n === instances)),
);
const setups: Setup[] = [];
try {
  for (const [label, engine, n] of chosen) setups.push(await start(label, engine, n));
  for (const s of setups) await load('warm-up', connections, exchanges(s, warmUp));
  const results = new Map<string, Result[]>(setups.map((s) => [s.label, []]));
  for (let r = 0; r < rounds; r++)
    for (const s of setups) results.get(s.label)!.push(await load(s.label, connections, exchanges(s, codes)));
  const merged = setups.map((s) => merge(s.label, results.get(s.label)!));
  const base = merged[0]!.perSecond;
  const rows = merged.map(
    (m) =>
      `| ${m.name} | ${Math.round(m.perSecond).toLocaleString('en')} | ${m.p99.toFixed(1)} ms | ${(m.perSecond / base).toFixed(2)} |${m.errors ? ` ${m.errors} errors` : ''}`,
  );
  console.log(
    [
      `Code exchanges, ${connections} connections, ${rounds} rounds of ${codes} (${cpus().length} × ${cpus()[0]?.model.trim()}):`,
      '',
      `| | exchanges / s | p99 | ratio to ${merged[0]!.name} |`,
      '|---|---|---|---|',
      ...rows,
    ].join('\n'),
  );
  if (merged.some((m) => m.errors)) process.exitCode = 1;
} finally {
  for (const s of setups) s.stop();
}
