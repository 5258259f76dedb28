import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './server.ts';
import { waitFor } from './wait.ts';

const root = join(import.meta.dir, '..', '..');

class ExitedBeforeListening extends Error {
  constructor(readonly output: string) {
    super(`the server exited before it listened:\n${output}`);
  }
}

/**
 * `verity serve` on a config, once it has logged that it listens. Nothing polls its port before (a
 * connection attempt could be handed that very port and hold it); if it exits first, its output is the
 * error. Both pipes are read to the end, so it never blocks on a full one.
 */
async function spawnOnce(configPath: string, command: string[]) {
  const proc = Bun.spawn([...command, 'serve', '--config', configPath], {
    cwd: root,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let out = '';
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      out = (out + decoder.decode(value, { stream: true })).slice(-1_000_000);
    }
  };
  const ended = Promise.all([drain(proc.stdout), drain(proc.stderr)]).then(() => true);
  try {
    await waitFor(
      'the server to listen',
      async () => {
        if (out.includes('"msg":"listening"')) return true;
        if (await Promise.race([ended, Bun.sleep(20).then(() => false)]))
          throw new ExitedBeforeListening(out);
        return false;
      },
      30_000,
    );
  } catch (e) {
    proc.kill('SIGKILL');
    throw e;
  }
  return { proc, output: () => out };
}

/**
 * `verity serve` on a port free a moment ago, with the config `toml(port)` written to `path`. Any other
 * process's outgoing connection may be given that port in between (the suite runs many servers); then,
 * and only then, another port is tried. `command` is the source under this Bun unless given (a binary).
 */
export async function serveOnFreePort(
  path: string,
  toml: (port: number) => string,
  command = [process.execPath, 'src/main.ts'],
) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    writeFileSync(path, toml(port));
    try {
      return { ...(await spawnOnce(path, command)), url: `http://127.0.0.1:${port}` };
    } catch (e) {
      if (!(e instanceof ExitedBeforeListening && /EADDRINUSE|in use/i.test(e.output)) || attempt === 3)
        throw e;
    }
  }
}
