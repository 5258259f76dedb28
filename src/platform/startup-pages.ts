import { readFileSync, readlinkSync } from 'node:fs';

/** How long start-up's tail is given before its pages are released (docs/architecture.md#startup-pages). */
export const STARTUP_SETTLE_MS = 2000;

/** Linux 5.4's madvise advice: reclaim the range's pages now. */
const MADV_PAGEOUT = 21;

/**
 * What became of start-up's pages: released, with the executable's resident kibibytes (code and
 * read-only data) before and after, or kept, with why.
 */
export type StartupRelease =
  | { released: true; beforeKib: number; afterKib: number }
  | { released: false; why: string };

const kept = (why: string): StartupRelease => ({ released: false, why });

interface Mapping {
  start: bigint;
  end: bigint;
  residentKib: number;
}

/**
 * Under Bun: drops start-up's compiled code, then hands the kernel back the pages of the executable
 * (code and read-only data, clean copies of the file) that start-up touched; a page that serving needs
 * again is read back at its first use (docs/architecture.md#startup-pages). Where that cannot be done
 * (not Linux, no libc, a kernel before 5.4) the pages stay and the answer says why. bun:ffi is handed
 * in, as to libcrypto.ts, so that nothing here imports it; `settleMs` is for tests.
 */
export async function releaseStartupPages(
  ffi: Pick<typeof import('bun:ffi'), 'dlopen' | 'FFIType'>,
  settleMs = STARTUP_SETTLE_MS,
): Promise<StartupRelease> {
  // Once JavaScriptCore is idle: a full collection, and the compiled code of every function is
  // dropped, to be compiled again at its next call (most of start-up's never runs again).
  Bun.shrink();
  // The pages go once that is done, and what start-up left running too (the JIT's compilations,
  // the first jobs).
  await new Promise((resolve) => setTimeout(resolve, settleMs).unref());
  const before = executableMappings('self');
  if (!before?.length) return kept("the executable's mappings cannot be read (/proc/self/smaps)");
  let libc: ReturnType<typeof dlopenLibc>;
  try {
    libc = dlopenLibc(ffi);
  } catch (e) {
    return kept(`libc.so.6 cannot be loaded: ${(e as Error).message}`);
  }
  try {
    for (const m of before)
      if (libc.symbols.madvise(m.start, m.end - m.start, MADV_PAGEOUT) !== 0)
        return kept('the kernel refused madvise(MADV_PAGEOUT), which needs Linux 5.4 or later');
  } finally {
    libc.close();
  }
  return { released: true, beforeKib: total(before), afterKib: executableResidentKib('self') ?? 0 };
}

const dlopenLibc = ({ dlopen, FFIType }: Pick<typeof import('bun:ffi'), 'dlopen' | 'FFIType'>) =>
  dlopen('libc.so.6', { madvise: { args: [FFIType.u64, FFIType.u64, FFIType.i32], returns: FFIType.i32 } });

/** Resident kibibytes of a process's executable, code and read-only data; undefined off Linux. */
export function executableResidentKib(pid: number | 'self'): number | undefined {
  const mappings = executableMappings(pid);
  return mappings && total(mappings);
}

const total = (mappings: Mapping[]) => mappings.reduce((kib, m) => kib + m.residentKib, 0);

/** The executable's mappings that hold only the file's own pages, from /proc/<pid>/smaps. */
function executableMappings(pid: number | 'self'): Mapping[] | undefined {
  let exe: string;
  let smaps: string;
  try {
    exe = readlinkSync(`/proc/${pid}/exe`);
    smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  const out: Mapping[] = [];
  // A mapping's header line: "start-end perms offset dev inode path", then its "Key: value" lines.
  for (const block of smaps.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s+(.*)$/m.exec(block);
    if (!header || header[3]!.includes('w') || header[4] !== exe) continue;
    // Pages written before being made read-only (relocations) are not the file's: they would be swapped.
    if (Number(/^Anonymous:\s+(\d+) kB/m.exec(block)?.[1] ?? 0) > 0) continue;
    out.push({
      start: BigInt(`0x${header[1]}`),
      end: BigInt(`0x${header[2]}`),
      residentKib: Number(/^Rss:\s+(\d+) kB/m.exec(block)?.[1] ?? 0),
    });
  }
  return out;
}
