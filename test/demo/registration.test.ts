import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { join } from 'node:path';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import {
  DEMO_APP_NAME,
  type DemoRegistration,
  ensureDemoRegistration,
  registrationPath,
} from '../../src/demo/registration.ts';
import { type TestContext, testContext, testToml } from '../helpers/context.ts';

setDefaultTimeout(60_000);

/**
 * Two demo processes started at the same moment against one SQLite database: exactly one sandbox
 * application (and one webhook endpoint) is registered, and both processes end up with its credentials.
 */

const EXTRA = '[webhooks]\nallow_localhost_in_sandbox = true';
const DEMO_URL = 'http://localhost:8181';
let ctx: TestContext | undefined;
afterEach(() => ctx?.cleanup());

/** Spawns register-process.ts and resolves once it has opened the database and waits for `go`. */
async function startRegistrar(configPath: string) {
  const child = Bun.spawn(
    [process.execPath, join(import.meta.dir, 'register-process.ts'), configPath, DEMO_URL],
    {
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    },
  );
  const reader = child.stdout.getReader();
  let out = '';
  while (!out.includes('ready\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`registrar exited early: ${await new Response(child.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  return {
    go() {
      child.stdin.write('go\n');
      child.stdin.flush();
    },
    async result(): Promise<DemoRegistration> {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      const code = await child.exited;
      const stderr = await new Response(child.stderr).text();
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      return JSON.parse(out.slice(out.indexOf('ready\n') + 6).trim()) as DemoRegistration;
    },
  };
}

test('two processes registering at once share one registration', async () => {
  ctx = await testContext({ extra: EXTRA });
  const configPath = join(ctx.dir, 'verity.toml');
  await Bun.write(configPath, testToml(ctx.dir, EXTRA));
  // The database is migrated and keyed before either process starts, as `verity serve` leaves it.
  ctx.db.close();

  const [a, b] = await Promise.all([startRegistrar(configPath), startRegistrar(configPath)]);
  a.go();
  b.go();
  const [ra, rb] = await Promise.all([a.result(), b.result()]);

  expect(ra.clientId).toStartWith('cid_test_');
  expect(ra.webhook?.secret).toStartWith('whsec_');
  expect(rb).toEqual(ra);
  const saved = JSON.parse(await Bun.file(registrationPath(ctx)).text()) as DemoRegistration;
  expect(saved).toEqual(ra);

  const { Database } = await import('bun:sqlite');
  const db = new Database(join(ctx.dir, 'verity.db'), { readonly: true });
  try {
    const apps = db
      .query<{ id: string }, [string]>('SELECT id FROM applications WHERE name = ?')
      .all(DEMO_APP_NAME);
    expect(apps).toEqual([{ id: ra.applicationId }]);
    expect(db.query('SELECT id FROM developers').all()).toHaveLength(1);
    const endpoints = db
      .query<{ id: string }, [string]>('SELECT id FROM webhook_endpoints WHERE application_id = ?')
      .all(ra.applicationId);
    expect(endpoints).toEqual([{ id: ra.webhook!.endpointId }]);
    // The client secret is kept in the database as its SHA-256 only, and it is the one both processes hold.
    const hashes = db
      .query<{ secret_hash: string }, [string]>(
        `SELECT s.secret_hash FROM client_secrets s JOIN application_environments e ON e.id = s.environment_id
         WHERE e.client_id = ?`,
      )
      .all(ra.clientId);
    expect(hashes).toEqual([{ secret_hash: await sha256Hex(ra.clientSecret) }]);
  } finally {
    db.close();
  }
  for (const file of ['verity.db', 'verity.db-wal']) {
    const bytes = Bun.file(join(ctx.dir, file));
    if (await bytes.exists())
      expect(new TextDecoder().decode(await bytes.arrayBuffer())).not.toContain(ra.clientSecret);
  }
});

test('two starts at once in one process share one registration too', async () => {
  ctx = await testContext({ extra: EXTRA });
  const [a, b] = await Promise.all([
    ensureDemoRegistration(ctx, DEMO_URL),
    ensureDemoRegistration(ctx, DEMO_URL),
  ]);
  expect(b).toEqual(a);
  expect(
    ctx.db.sql
      .prepare<{ n: number }>('SELECT count(*) AS n FROM applications WHERE name = ?')
      .get(DEMO_APP_NAME),
  ).toEqual({ n: 1 });
});
