/** The processes a benchmark starts: which cores they may use, when they are ready, their memory. */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export const cores = availableParallelism();
/** The server's core; with one core there is nothing to pin. */
export const SERVER_CORE = 0;
export const pinned = cores >= 2;
export const pin = pinned ? ['taskset', '-c', String(SERVER_CORE)] : [];

/** Every thread of `pid` (workers included) on the server's core, or free on all of them. */
export function setAffinity(pid: number, where: 'server core' | 'all cores' | 'other cores') {
  if (!pinned) return;
  const list =
    where === 'server core'
      ? String(SERVER_CORE)
      : where === 'all cores'
        ? `0-${cores - 1}`
        : `1-${cores - 1}`;
  const r = Bun.spawnSync(['taskset', '-a', '-p', '-c', list, String(pid)], { stdout: 'ignore' });
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
