/**
 * Benchmark of the authorization code flow's hot path and the light routes, side by side with
 * node-oidc-provider 9 (issues 3 and 21; what is measured and why: scripts/bench/README.md).
 *
 *   bun scripts/bench/flow.ts [--compare] [--codes 8000] [--warm-up 12000] [--slices 24] [--sign-ms 150]
 *                             [--connections 50] [--seconds 3] [--multi-slices 8] [--oidc-codes 4000]
 *
 * The server processes (Verity, node-oidc-provider with --compare, a bare hono listener) are pinned to
 * one core with `taskset`; this process, the load generator, keeps to the others. Exchanges run in short
 * slices, each between two measurements of the ceilings on the server's core (the server's own
 * `runtime.signRs256`, node:crypto inside node-oidc-provider, `openssl speed rsa2048`), and each slice is
 * compared with the ceilings measured next to it: the machine's speed drifts by a third within minutes.
 * Then slices of a second server, started on every core, take turns with slices of the pinned one; then
 * the light routes in rounds; then dist/verity (built first) for its RSS.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { AppContext } from '../../src/context.ts';
import { base64url } from '../../src/crypto/encoding.ts';
import { randomToken } from '../../src/crypto/tokens.ts';
import { silentLogger } from '../../src/log.ts';
import { runtime } from '../../src/platform/runtime.ts';
import { startServer } from '../../src/server.ts';
import { freePort } from '../../test/helpers/port.ts';
import { measureBinary } from './binary.ts';
import { opensslSignsPerSecond } from './ceilings.ts';
import {
  accessTokens,
  bearerRequests,
  type HttpRequest,
  load,
  median,
  merge,
  type Result,
  repeat,
} from './load.ts';
import { type OidcProvider, startOidcProvider } from './oidc-provider/start.ts';
import { keepOffServerCore, pin, procKb, threadsCpuMicros, unpin, waitReady } from './processes.ts';
import { type Ceilings, report, type Signing, type Slice } from './report.ts';
import { benchToml, exchangeRequests, type Fixture, idTokenAlgTable, mintCodes } from './verity-fixture.ts';

const root = join(import.meta.dir, '..', '..');
const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};

// The light routes take turns in this many rounds (see main).
const ROUTE_ROUNDS = 6;
// Access tokens that UserInfo requests cycle through.
const BEARERS = 50;

if (args[0] === '--server') await serve(args[1]!, Number(args[2]));
else await main();

// ---------------------------------------------------------------------------------------------------
// Server process

async function serve(configPath: string, port: number) {
  // As the server runs (the token endpoint a native route of the listener, see src/app.ts), logging as
  // a server does by default (a security-event line per token request) to the stdout the benchmark
  // discards; without the scheduled jobs, which would run at times of their own.
  await startServer(parseConfig(readFileSync(configPath, 'utf8')), {
    port,
    jobs: false,
    extend: (app) => {
      // The ceiling on demand, between slices of exchanges (see main).
      app.get('/bench/sign', async (c) =>
        c.json(await measureSigning(c.var.ctx, Number(c.req.query('ms') ?? 2000))),
      );
      // CPU time the server itself used: per request, it does not depend on what else the machine runs.
      // Of it, the JIT compiler's threads: still compiling, they take the server's core from it.
      app.get('/bench/cpu', (c) => {
        const u = process.cpuUsage();
        return c.json({ micros: u.user + u.system, jitMicros: threadsCpuMicros('self', 'JITWorker') });
      });
    },
  });
}

/**
 * Sequential RS256 signatures with the active key, through the call the token endpoint makes
 * (`runtime.signRs256`), over the signing input of an ID token of the same size: one core's ceiling.
 */
async function measureSigning(ctx: AppContext, ms: number): Promise<Signing> {
  const { kid, key } = await ctx.keys.signingKey();
  const clientId = 'cid_test_0123456789012345678901234567890123456789012';
  const part = (value: object) => base64url(new TextEncoder().encode(JSON.stringify(value)));
  const input = `${part({ alg: 'RS256', kid, typ: 'JWT' })}.${part({
    iss: 'http://localhost:8080',
    sub: randomToken(),
    aud: clientId,
    exp: 1780000900,
    iat: 1780000000,
    auth_time: 1780000000,
    nonce: randomToken(),
    azp: clientId,
    at_hash: randomToken('', 16),
    acr: 'high',
    amr: ['pwd', 'face'],
  })}`;
  for (let i = 0; i < 50; i++) runtime.signRs256(key, input);
  let n = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  while (performance.now() - start < ms) {
    runtime.signRs256(key, input);
    n++;
  }
  const used = process.cpuUsage(cpu);
  return {
    signsPerSecond: n / ((performance.now() - start) / 1000),
    cpuMicros: (used.user + used.system) / n,
    provider: runtime.rs256Provider,
  };
}

// ---------------------------------------------------------------------------------------------------
// Load generator

async function main() {
  const codes = flag('codes', 8000);
  const warmUpCodes = flag('warm-up', 12000);
  const connections = flag('connections', 50);
  const seconds = flag('seconds', 3);
  const sliceCount = flag('slices', 24);
  const multiSlices = flag('multi-slices', 8);
  const oidcCodes = flag('oidc-codes', 4000);
  const compare = args.includes('--compare');
  const dir = mkdtempSync(join(tmpdir(), 'verity-bench-'));
  const children: { kill(): void }[] = [];
  try {
    // The memory figures are dist/verity's, built from this tree.
    const build = Bun.spawnSync([process.execPath, join(root, 'scripts', 'build.ts'), '--binary-only'], {
      cwd: root,
      stdout: 'ignore',
      stderr: 'inherit',
    });
    if (build.exitCode !== 0) throw new Error('the dist/verity build failed');
    // The load generator keeps off the server's core, so the server's one core is all its own.
    keepOffServerCore(process.pid);
    // Each server migrates its database and creates the signing keys; this process then shares it. A
    // second server, with a database of its own, runs on every core. Both keep the default
    // signing_threads ("auto"): one thread per core, so none for the one started on one core.
    const { server, base, ctx } = await startVerity(dir, pin);
    children.push(server);
    const everyCore = await startVerity(join(dir, 'every-core'), unpin);
    children.push(everyCore.server);
    const barePort = await freePort();
    const bare = Bun.spawn([...pin, process.execPath, join(import.meta.dir, 'bare.ts'), String(barePort)]);
    children.push(bare);
    const bareBase = `http://127.0.0.1:${barePort}`;
    await waitReady(bareBase);
    let op: OidcProvider | undefined;
    if (compare) {
      op = await startOidcProvider(root, dir, await freePort());
      children.push(op);
    }
    await Bun.sleep(1000);
    const bareIdleKb = procKb(bare.pid, 'VmRSS');

    const mintStart = performance.now();
    const fixture = await mintCodes(ctx, codes);
    const warmUp = await mintCodes(ctx, warmUpCodes);
    const multiOne = await mintCodes(ctx, codes);
    const multiAll = await mintCodes(everyCore.ctx, codes);
    // As many exchanges as the one-core server will have made before the turns (warm-up and slices):
    // the JIT keeps compiling for the first twenty thousand or so.
    const everyCoreWarmUp = await mintCodes(everyCore.ctx, warmUpCodes + codes);
    const forTokens = await mintCodes(ctx, BEARERS);
    const opFixture = op && {
      codes: await op.mint(oidcCodes),
      warmUp: await op.mint(Math.ceil(oidcCodes / 2)),
      forTokens: await op.mint(BEARERS),
    };
    const mintSeconds = (performance.now() - mintStart) / 1000;

    // Exchanges before the measured ones, so the JIT has compiled the hot path (as in a running server).
    await load('warm-up', connections, exchangeRequests(base, warmUp));
    await load('warm-up', connections, exchangeRequests(everyCore.base, everyCoreWarmUp));
    if (op && opFixture) await load('warm-up', connections, op.exchanges(opFixture.warmUp));
    await load('warm-up', connections, repeat({ url: bareBase }), { seconds: 1 });
    const cpu = async () =>
      (await (await fetch(`${base}/bench/cpu`)).json()) as { micros: number; jitMicros: number };
    const ceilings = async (): Promise<Ceilings> => ({
      verity: (await (await fetch(`${base}/bench/sign?ms=${flag('sign-ms', 150)}`)).json()) as Signing,
      node: await op?.sign(flag('sign-ms', 150)),
      openssl: await opensslSignsPerSecond(),
    });

    // Per core: slices of exchanges (Verity's, then node-oidc-provider's), each between two measurements
    // of the ceilings. A ceiling measured once, apart from the exchanges, would compare two speeds.
    const slices: Slice[] = [];
    let last = await ceilings();
    const part = <T>(xs: T[], i: number, n: number) =>
      xs.slice(Math.floor((i * xs.length) / n), Math.floor(((i + 1) * xs.length) / n));
    for (let i = 0; i < sliceCount; i++) {
      const cpuBefore = await cpu();
      const exchanges = await load(
        'slice',
        connections,
        exchangeRequests(base, { ...fixture, codes: part(fixture.codes, i, sliceCount) }),
      );
      const cpuAfter = await cpu();
      const oidc =
        op &&
        opFixture &&
        (await load('slice', connections, op.exchanges(part(opFixture.codes, i, sliceCount))));
      const next = await ceilings();
      slices.push({
        exchanges,
        oidc,
        around: [last, next],
        cpuMicros: cpuAfter.micros - cpuBefore.micros,
        jitMicros: cpuAfter.jitMicros - cpuBefore.jitMicros,
      });
      last = next;
    }

    // Every core: slices of the two servers take turns.
    const turns: { one: Result; all: Result }[] = [];
    // What the load generator takes from the cores the every-core server shares with it.
    let loadCpuMicros = 0;
    for (let i = 0; i < multiSlices; i++) {
      const slice = (at: string, minted: Fixture) =>
        load(
          'slice',
          connections,
          exchangeRequests(at, { ...minted, codes: part(minted.codes, i, multiSlices) }),
        );
      const one = await slice(base, multiOne);
      const before = process.cpuUsage();
      const all = await slice(everyCore.base, multiAll);
      const used = process.cpuUsage(before);
      loadCpuMicros += used.user + used.system;
      turns.push({ one, all });
    }
    everyCore.ctx.db.close();
    // How far this machine's cores add up for pure arithmetic (on a VM they may share physical cores).
    const opensslScaling: number[] = [];
    for (let i = 0; i < 3; i++)
      opensslScaling.push((await opensslSignsPerSecond(1, true)) / (await opensslSignsPerSecond()));

    // The light routes take turns in short rounds, for the same reason the exchanges run in slices;
    // each is compared with the bare listener's route of its own round.
    const verityTokens = await accessTokens(exchangeRequests(base, forTokens));
    const opTokens = op && opFixture && (await accessTokens(op.exchanges(opFixture.forTokens)));
    // The bare listener also answers with a body of each document's size and the same headers.
    const bytes = async (path: string) => (await (await fetch(`${base}${path}`)).arrayBuffer()).byteLength;
    const routes: Record<string, () => HttpRequest> = {
      bare: repeat({ url: bareBase }),
      bareDiscovery: repeat({ url: `${bareBase}/bytes/${await bytes('/.well-known/openid-configuration')}` }),
      bareJwks: repeat({ url: `${bareBase}/bytes/${await bytes('/.well-known/jwks.json')}` }),
      discovery: repeat({ url: `${base}/.well-known/openid-configuration` }),
      jwks: repeat({ url: `${base}/.well-known/jwks.json` }),
      userinfo: bearerRequests(`${base}/v1/userinfo`, verityTokens),
      ...(op && opTokens
        ? {
            opDiscovery: repeat({ url: `${op.base}/.well-known/openid-configuration` }),
            opUserinfo: bearerRequests(`${op.base}/me`, opTokens),
          }
        : {}),
    };
    const rounds: Record<string, Result>[] = [];
    for (let i = 0; i < ROUTE_ROUNDS; i++) {
      const round: Record<string, Result> = {};
      for (const [name, next] of Object.entries(routes))
        round[name] = await load(name, connections, next, { seconds: seconds / ROUTE_ROUNDS });
      rounds.push(round);
    }
    const route = (name: string) =>
      routes[name]
        ? merge(
            name,
            rounds.map((r) => r[name]!),
          )
        : undefined;
    const versusBare = (name: string, bareName = 'bare') =>
      median(rounds.map((r) => r[name]!.perSecond / r[bareName]!.perSecond));

    // ES256 ID tokens, once the server offers them per client.
    const discovery = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as {
      id_token_signing_alg_values_supported?: string[];
    };
    let es256: Result | string = 'n/a (not in id_token_signing_alg_values_supported)';
    if (discovery.id_token_signing_alg_values_supported?.includes('ES256')) {
      if (idTokenAlgTable(ctx)) {
        const es = await mintCodes(ctx, codes / 2, 'ES256');
        es256 = await load('code exchange ES256', connections, exchangeRequests(base, es));
      } else es256 = 'n/a (ES256 offered, but no id_token_signed_response_alg column found)';
    }
    ctx.db.close();

    const binary = await measureBinary(join(root, 'dist', 'verity'), dir, codes, connections);

    report({
      compare,
      codes,
      warmUpCodes,
      mintSeconds,
      connections,
      slices,
      turns,
      loadCpuShare: loadCpuMicros / 1e6 / turns.reduce((t, x) => t + x.all.seconds, 0),
      opensslScaling: median(opensslScaling),
      routes: {
        bare: route('bare')!,
        bareDiscovery: route('bareDiscovery')!,
        bareJwks: route('bareJwks')!,
        discovery: route('discovery')!,
        jwks: route('jwks')!,
        userinfo: route('userinfo')!,
        opDiscovery: route('opDiscovery'),
        opUserinfo: route('opUserinfo'),
      },
      versusBare,
      rounds: ROUTE_ROUNDS,
      es256,
      binary,
      bareIdleKb,
      opIdleKb: op?.idleKb,
    });
  } finally {
    for (const c of children) c.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A Verity server started with `taskset` (`cpus`: pinned to the server's core, or on every core), its
 * database in `dir`, and a context on that database to mint codes.
 */
async function startVerity(dir: string, cpus: string[]) {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const configPath = join(dir, 'verity.toml');
  writeFileSync(configPath, benchToml(dir, port));
  const server = Bun.spawn(
    [...cpus, process.execPath, import.meta.path, '--server', configPath, String(port)],
    {
      stdout: 'ignore',
      stderr: 'inherit',
    },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${base}/healthz`);
  const ctx = await createContext(parseConfig(readFileSync(configPath, 'utf8')), {
    log: silentLogger,
    migrate: false,
  });
  return { server, base, ctx };
}
