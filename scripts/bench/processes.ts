/** The processes a benchmark starts: which cores they may use, when they are ready, their memory. */
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export const cores = availableParallelism();
/** Servers run on core 0 and the load generator on the others; with one core nothing is pinned. */
export const pinned = cores >= 2;
export const pin = pinned ? ['taskset', '-c', '0'] : [];
/** A server let loose on every core: spelt out, since a child inherits the load generator's cores. */
export const unpin = pinned ? ['taskset', '-c', `0-${cores - 1}`] : [];

/** Every thread of `pid` (workers included) on the cores but 0: the load generator's. */
export function keepOffServerCore(pid: number) {
  if (!pinned) return;
  const r = Bun.spawnSync(['taskset', '-a', '-p', '-c', `1-${cores - 1}`, String(pid)], { stdout: 'ignore' });
  if (r.exitCode !== 0) throw new Error(`taskset failed for ${pid}: ${r.stderr.toString()}`);
}

export async function waitReady(url: string) {
  for (let i = 0; i < 400; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await Bun.sleep(50);
  }
  throw new Error(`not ready: ${url}`);
}

/** Kilobytes from /proc/<pid>/status (VmRSS now, VmHWM peak). */
export function procKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time, in µs, of the threads of `pid` whose name starts with `prefix` (Linux's /proc; else 0). */
export function threadsCpuMicros(pid: number | 'self', prefix: string): number {
  let ns = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        if (!readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').startsWith(prefix)) continue;
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {} // the thread has ended
    }
  } catch {}
  return ns / 1000;
}
