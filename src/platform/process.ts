import { readFile } from 'node:fs/promises';

/** The process-level seams the CLI needs: environment, standard streams, files by path. */
export const proc = {
  env: process.env as Record<string, string | undefined>,
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
  readFile: (path: string) => readFile(path, 'utf8'),
  onSignal(signals: NodeJS.Signals[], fn: () => void) {
    for (const s of signals) process.on(s, fn);
  },
  exit: (code: number) => process.exit(code),
};
