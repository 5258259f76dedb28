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
