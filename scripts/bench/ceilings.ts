/** `openssl speed rsa2048` on the server's core: RS256 at OpenSSL's speed, the ceiling the signers are held to. */
import { cores, pin, pinned } from './processes.ts';

/**
 * Signatures per second. `-elapsed` divides by wall-clock time, as every other rate here is (by default
 * openssl divides by its CPU time, which on a shared core is higher than what the core delivered).
 * It runs for `seconds` signing, then as long verifying. With `everyCore`, one openssl process per core
 * signs at once, unpinned (`-multi`), and the rate is their sum: how far the machine's cores add up.
 */
export async function opensslSignsPerSecond(seconds = 1, everyCore = false): Promise<number> {
  const where = everyCore ? ['-multi', String(cores)] : [];
  const command = ['openssl', 'speed', '-elapsed', '-seconds', String(seconds), ...where, 'rsa2048'];
  // This process keeps off the server's core, and a child inherits that: every core is named.
  const cpus = everyCore ? (pinned ? ['taskset', '-c', `0-${cores - 1}`] : []) : pin;
  const child = Bun.spawn([...cpus, ...command], { stdout: 'pipe', stderr: 'ignore' });
  const out = await new Response(child.stdout).text();
  await child.exited;
  return parseOpensslSpeed(out);
}

/** The sign/s column of the `rsa 2048 bits` row. */
function parseOpensslSpeed(out: string): number {
  // rsa 2048 bits 0.000736s 0.000021s   1359.4  47834.4   (sign, verify, sign/s, verify/s)
  const m = /^rsa\s+2048 bits\s+\S+\s+\S+\s+([\d.]+)\s+[\d.]+\s*$/m.exec(out);
  if (!m) throw new Error(`openssl speed: no rsa 2048 row in\n${out}`);
  return Number(m[1]);
}
