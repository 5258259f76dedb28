/** dist/verity's memory: idle RSS once started, then peak RSS while it serves exchanges. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createContext } from '../../src/bootstrap.ts';
import { parseConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { STARTUP_SETTLE_MS } from '../../src/platform/startup-pages.ts';
import { freePort } from '../../test/helpers/port.ts';
import { load, type Result } from './load.ts';
import { pin, procKb, waitReady } from './processes.ts';
import { benchToml, exchangeRequests, mintCodes } from './verity-fixture.ts';

export interface BinaryMemory {
  /** Kilobytes. */
  idle?: number;
  peak?: number;
  exchanges: Result;
}

export async function measureBinary(
  exe: string,
  parent: string,
  codes: number,
  connections: number,
): Promise<BinaryMemory> {
  const dir = join(parent, 'binary');
  const port = await freePort();
  const configPath = join(parent, 'binary.toml');
  writeFileSync(configPath, benchToml(dir, port));
  const child = Bun.spawn([...pin, exe, 'serve', '--config', configPath], {
    stdout: 'ignore',
    stderr: 'ignore',
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitReady(`${base}/readyz`);
    // Past start-up's tail, whose pages it then gives back (docs/architecture.md#startup-pages), and
    // a health check since, as a load balancer's.
    await Bun.sleep(STARTUP_SETTLE_MS + 1000);
    await (await fetch(`${base}/readyz`)).arrayBuffer();
    await Bun.sleep(200);
    const idle = procKb(child.pid, 'VmRSS');
    const ctx = await createContext(parseConfig(readFileSync(configPath, 'utf8')), {
      log: silentLogger,
      migrate: false,
    });
    const fixture = await mintCodes(ctx, codes);
    const warmUp = await mintCodes(ctx, Math.ceil(codes / 2));
    ctx.db.close();
    await load('warm-up', connections, exchangeRequests(base, warmUp));
    const exchanges = await load('code exchange (dist/verity)', connections, exchangeRequests(base, fixture));
    return { idle, peak: procKb(child.pid, 'VmHWM'), exchanges };
  } finally {
    child.kill();
    await child.exited;
  }
}
