/** The benchmark's output: the side-by-side table, the ratios behind it, and every target with PASS/FAIL. */
import type { BinaryMemory } from './binary.ts';
import { median, merge, percentile, type Result } from './load.ts';
import { cores, pinned } from './processes.ts';

export interface Signing {
  signsPerSecond: number;
  /** Server CPU time per signature. */
  cpuMicros: number;
  provider: string;
}

/** The ceilings on the server's core, measured one after another between two slices. */
export interface Ceilings {
  verity: Signing;
  node?: number;
  openssl: number;
}

export interface Slice {
  exchanges: Result;
  oidc?: Result;
  /** The ceilings measured before and after the slice. */
  around: [Ceilings, Ceilings];
  /** Server CPU time the slice used, and of it the JIT compiler's threads'. */
  cpuMicros: number;
  jitMicros: number;
}

export interface Run {
  compare: boolean;
  codes: number;
  warmUpCodes: number;
  mintSeconds: number;
  connections: number;
  slices: Slice[];
  /** Slices of the server pinned to one core and of the one started on every core, taking turns. */
  turns: { one: Result; all: Result }[];
  /** CPU the load generator used while the every-core server ran, in cores. */
  loadCpuShare: number;
  /** `openssl speed` on every core ÷ on one, measured after the turns: the machine's own scaling. */
  opensslScaling: number;
  routes: Record<'bare' | 'bareDiscovery' | 'bareJwks' | 'discovery' | 'jwks' | 'userinfo', Result> &
    Partial<Record<'opDiscovery' | 'opUserinfo', Result>>;
  /**
   * A route's rate over a bare route's in the same round (by default the bare `ok`), the median of
   * `rounds`.
   */
  versusBare(name: 'discovery' | 'jwks' | 'userinfo', bare?: 'bareDiscovery' | 'bareJwks'): number;
  rounds: number;
  es256: Result | string;
  binary: BinaryMemory;
  /** Kilobytes. */
  bareIdleKb?: number;
  opIdleKb?: number;
}

const int = (x: number | undefined) =>
  x === undefined || !Number.isFinite(x) ? '—' : Math.round(x).toLocaleString('en-US');
const mib = (kb: number | undefined) => (kb === undefined ? '—' : `${(kb / 1024).toFixed(1)} MiB`);
const rate = (r: Result | undefined) => (r ? `${int(r.perSecond)} (p99 ${int(r.p99)} ms)` : '—');
const list = (xs: number[]) =>
  [...xs]
    .sort((a, b) => a - b)
    .map((x) => x.toFixed(2))
    .join(' ');
const mean = (a: number, b: number) => (a + b) / 2;

export function report(run: Run) {
  const { slices, turns, routes, binary } = run;
  const ceilings = [slices[0]!.around[0], ...slices.map((s) => s.around[1])];
  const exchange = merge(
    'code exchange',
    slices.map((s) => s.exchanges),
  );
  const oidc = run.compare
    ? merge(
        'code exchange',
        slices.map((s) => s.oidc!),
      )
    : undefined;
  const allCores = merge(
    'code exchange, every core',
    turns.map((t) => t.all),
  );
  const oneCore = merge(
    'code exchange, one core',
    turns.map((t) => t.one),
  );
  const signer = ceilings[0]!.verity.provider;
  const signerSigns = median(ceilings.map((c) => c.verity.signsPerSecond));
  const nodeSigns = run.compare ? median(ceilings.map((c) => c.node!)) : undefined;
  const openssl = median(ceilings.map((c) => c.openssl));

  // Each slice against the ceilings measured next to it (the mean of the two around it).
  const opensslAround = (s: Slice) => mean(s.around[0].openssl, s.around[1].openssl);
  const signerAround = (s: Slice) =>
    mean(s.around[0].verity.signsPerSecond, s.around[1].verity.signsPerSecond);
  const versusOpenssl = slices.map((s) => s.exchanges.perSecond / opensslAround(s));
  const versusSigner = slices.map((s) => s.exchanges.perSecond / signerAround(s));
  const versusOidc = run.compare ? slices.map((s) => s.exchanges.perSecond / s.oidc!.perSecond) : [];
  const oidcVersusOpenssl = run.compare ? slices.map((s) => s.oidc!.perSecond / opensslAround(s)) : [];
  const signerVersusOpenssl = ceilings.map((c) => c.verity.signsPerSecond / c.openssl);
  const everyCore = turns.map((t) => t.all.perSecond / t.one.perSecond);

  console.log(
    `\nVerity benchmark — ${cores} cores; ${pinned ? 'servers pinned to core 0, the load generator on the others' : 'one core: nothing pinned'}; RS256 through ${signer}; ${run.connections} connections`,
  );
  console.log(
    `${run.codes} codes per measurement (and ${run.warmUpCodes} for warming up) minted in ${run.mintSeconds.toFixed(1)} s\n`,
  );
  printTable([
    ['', 'Verity', 'node-oidc-provider 9 (SQLite)', 'ceiling on the same core'],
    [
      'code exchange / s',
      rate(exchange),
      rate(oidc),
      `RS256 signing: Verity (${signer}) ${int(signerSigns)}/s, Node ${int(nodeSigns)}/s, openssl speed ${int(openssl)}/s`,
    ],
    ['code exchange / s, every core', rate(allCores), '—', `${median(everyCore).toFixed(2)}× one core`],
    ['ES256 code exchange / s', typeof run.es256 === 'string' ? run.es256 : rate(run.es256), '—', '—'],
    ['UserInfo / s', int(routes.userinfo.perSecond), int(routes.opUserinfo?.perSecond), '—'],
    [
      'discovery / s',
      int(routes.discovery.perSecond),
      int(routes.opDiscovery?.perSecond),
      `bare hono on Bun ${int(routes.bare.perSecond)}; with the same body and headers ${int(routes.bareDiscovery.perSecond)}`,
    ],
    [
      'JWKS / s',
      int(routes.jwks.perSecond),
      '—',
      `bare hono on Bun ${int(routes.bare.perSecond)}; with the same body and headers ${int(routes.bareJwks.perSecond)}`,
    ],
    [
      'idle RSS',
      `${mib(binary.idle)} (dist/verity)`,
      mib(run.opIdleKb),
      `bare hono on Bun ${mib(run.bareIdleKb)}`,
    ],
    ['peak RSS, exchanges', `${mib(binary.peak)} (dist/verity)`, '—', '—'],
  ]);
  if (!run.compare) console.log('(node-oidc-provider: run with --compare)');
  console.log(
    `\nVerity's rates are the benchmark's server process (the source under Bun, as dist/verity runs it, with two
routes of its own for the ceilings); dist/verity itself exchanged codes at ${rate(binary.exchanges)} while its RSS was read.`,
  );

  console.log(`\nPer core, ${slices.length} slices, each against the ceilings measured before and after it:`);
  console.log(`  Verity ÷ openssl speed:            ${list(versusOpenssl)}`);
  console.log(`  Verity ÷ runtime.signRs256:        ${list(versusSigner)}`);
  if (run.compare) {
    console.log(`  node-oidc-provider ÷ openssl:      ${list(oidcVersusOpenssl)}`);
    console.log(`  Verity ÷ node-oidc-provider:       ${list(versusOidc)}`);
  }
  console.log(
    `  runtime.signRs256 ÷ openssl speed: ${list(signerVersusOpenssl)} (each pair measured one after the other)`,
  );
  const cpuPerExchange = median(slices.map((s) => s.cpuMicros / s.exchanges.requests));
  const cpuPerSign = median(ceilings.map((c) => c.verity.cpuMicros));
  const jitPerExchange = median(slices.map((s) => s.jitMicros / s.exchanges.requests));
  console.log(
    `Server CPU time: ${int(cpuPerExchange)} µs per exchange (the JIT compiler's threads ${jitPerExchange.toFixed(1)}), ${int(cpuPerSign)} µs per signature (medians)`,
  );
  console.log(
    `\nEvery core, ${turns.length} turns of a slice on one core and one on every core (two servers, "auto" signing threads): one core ${rate(oneCore)}, every core ${rate(allCores)}; ratios ${list(everyCore)}.`,
  );
  console.log(
    `  While the every-core server ran, the load generator used ${run.loadCpuShare.toFixed(2)} of a core on the same cores.`,
  );
  console.log(
    `  The machine's own ceiling: openssl speed on its ${cores} cores signs ${run.opensslScaling.toFixed(2)}× what it signs on one (median of 3).`,
  );
  // The every-core server shares the cores with the load generator; the pinned one does not.
  const freeCeiling = (run.opensslScaling * (cores - run.loadCpuShare)) / cores;
  console.log(
    `  Less the load generator's share, the cores could give the every-core server about ${freeCeiling.toFixed(2)}× one core.`,
  );

  // Other load on the machine slows the server's core in stretches; when they cover much of the run,
  // the exchanges (memory-bound) slow more than the signatures (compute-bound). Say so.
  const rates = ceilings.map((c) => c.openssl).sort((a, b) => a - b);
  const [low, high] = [percentile(rates, 25), percentile(rates, 75)];
  if (low < 0.8 * high)
    console.log(
      `\nUNSTABLE: a quarter of the openssl speed measurements were under ${int(low)} signatures/s and a quarter over ${int(high)}: something else on this machine slowed the server's core for long stretches. Run it again when the machine is quiet.`,
    );

  // The bare route answers 2 bytes; the documents are kilobytes. Against a bare route of the same size,
  // what is left is Verity's own cost.
  console.log(
    `\nLight routes ÷ the bare listener answering the same number of bytes with the same headers (median of ${run.rounds} rounds): discovery ${run.versusBare('discovery', 'bareDiscovery').toFixed(2)}, JWKS ${run.versusBare('jwks', 'bareJwks').toFixed(2)}.`,
  );

  console.log('\nTargets');
  const checks: Check[] = [
    ['1. runtime.signRs256 ÷ openssl speed (median pair)', median(signerVersusOpenssl), '≥', 0.9],
    ['2. exchanges, every core ÷ one core (median turn)', median(everyCore), '≥', 1.7],
    [`2. exchange p99 ms, every core, ${run.connections} connections`, allCores.p99, '<', 50],
    ['3. exchanges ÷ openssl speed, one core (median slice)', median(versusOpenssl), '≥', 0.8],
    [
      '3. Verity ÷ node-oidc-provider exchanges, one core (median slice)',
      run.compare ? median(versusOidc) : undefined,
      '≥',
      2.5,
    ],
    [
      `4. discovery ÷ bare hono listener (median of ${run.rounds} rounds)`,
      run.versusBare('discovery'),
      '≥',
      0.8,
    ],
    [`4. JWKS ÷ bare hono listener (median of ${run.rounds} rounds)`, run.versusBare('jwks'), '≥', 0.8],
    [
      `4. UserInfo ÷ bare hono listener (median of ${run.rounds} rounds; ${int(routes.userinfo.perSecond)}/s)`,
      run.versusBare('userinfo'),
      '≥',
      USERINFO_VERSUS_BARE,
    ],
    ['5. dist/verity idle RSS MiB', binary.idle === undefined ? undefined : binary.idle / 1024, '≤', 48],
    [
      '5. dist/verity peak RSS MiB under exchanges',
      binary.peak === undefined ? undefined : binary.peak / 1024,
      '≤',
      96,
    ],
  ];
  printChecks(checks);
  const errors = exchange.errors + allCores.errors + (oidc?.errors ?? 0) + routes.userinfo.errors;
  if (errors) console.log(`WARNING: ${errors} requests failed`);
}

/**
 * Issue 21 asks for 20,000 UserInfo requests/s on one core of a machine where the bare hono route served
 * 67,000/s; as a ratio to the bare route of the same run, the target holds on any machine.
 */
const USERINFO_VERSUS_BARE = 20_000 / 67_000;

/** Label, value, comparison, target; an undefined value was not measured in this run. */
type Check = [string, number | undefined, '≥' | '<' | '≤', number];

function printChecks(checks: Check[]) {
  for (const [label, value, op, target] of checks) {
    if (value === undefined) {
      console.log(
        `SKIP  ${label}: not measured${label.includes('node-oidc') ? ' (run with --compare)' : ''}`,
      );
      continue;
    }
    const pass = op === '≥' ? value >= target : op === '<' ? value < target : value <= target;
    const shown = value >= 100 ? int(value) : value.toFixed(2);
    console.log(
      `${pass ? 'PASS' : 'FAIL'}  ${label}: ${shown} (target ${op} ${target.toLocaleString('en-US')})`,
    );
  }
}

function printTable(rows: string[][]) {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const [n, row] of rows.entries()) {
    console.log(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
    if (n === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}
