import { join } from 'node:path';
import { runCli } from '../../src/cli/index.ts';
import { proc } from '../../src/platform/process.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json calls). */
  json: any;
}

/** Runs the CLI in this process, capturing its output. */
export async function cli(...argv: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const saved = { stdout: proc.stdout, stderr: proc.stderr };
  proc.stdout = (t: string) => out.push(t) > 0;
  proc.stderr = (t: string) => err.push(t) > 0;
  try {
    const code = await runCli(argv);
    const stdout = out.join('');
    let json: any;
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
    return { code, stdout, stderr: err.join(''), json };
  } finally {
    proc.stdout = saved.stdout;
    proc.stderr = saved.stderr;
  }
}

const main = join(import.meta.dir, '..', '..', 'src', 'main.ts');

/**
 * The CLI as an operator runs it: a process of its own (in `cwd`, with `env` added), to its end. One
 * that does not end (a serve expected to refuse, say) is killed after 30 s, failing its test instead of
 * hanging it.
 */
export async function cliProcess(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Omit<CliResult, 'json'>> {
  const child = Bun.spawn([process.execPath, main, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}
