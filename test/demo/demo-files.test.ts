import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import { demoDatabasePath, ensureDemoRegistration, registrationPath } from '../../src/demo/registration.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

setDefaultTimeout(60_000);

let ctx: TestContext | undefined;
afterEach(() => ctx?.cleanup());

const mode = (path: string) => statSync(path).mode & 0o777;

/**
 * The demo's own SQLite file (`demo.db`, beside Verity's database) keeps signed-in demo sessions with
 * their live access tokens and claims, and the webhook payloads it received: like Verity's database
 * and `demo-app.json`, it is readable by its owner only, whatever the umask.
 */
test('the demo database, which holds access tokens, is not readable by other users', async () => {
  const previous = process.umask(0o022);
  try {
    ctx = await testContext({ engine: 'sqlite', extra: '[webhooks]\nallow_localhost_in_sandbox = true' });
    await ensureDemoRegistration(ctx, 'http://localhost:8181');
    const files = [demoDatabasePath(ctx), `${demoDatabasePath(ctx)}-wal`, `${demoDatabasePath(ctx)}-shm`]
      .filter((f) => existsSync(f))
      .map((f): [string, boolean] => [f.replace(/.*\//, ''), (mode(f) & 0o077) === 0]);
    expect({ registration: (mode(registrationPath(ctx)) & 0o077) === 0, files }).toEqual({
      registration: true,
      files: files.map(([f]) => [f, true]),
    });
    expect(files.length).toBeGreaterThan(0);
  } finally {
    process.umask(previous);
  }
});
