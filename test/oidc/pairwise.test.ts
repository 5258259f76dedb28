import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { createContext } from '../../src/bootstrap.ts';
import { rotateManually } from '../../src/keys/key-admin.ts';
import { subjectFor } from '../../src/keys/pairwise.ts';
import { silentLogger } from '../../src/log.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { tempDir, testConfig } from '../helpers/context.ts';

// A test boots up to four instances, each with a database of its own and its keys: on a busy
// machine, with PostgreSQL, that can take more than the default 5 s.
setDefaultTimeout(30_000);

const dirs: { cleanup(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

async function boot(dir: string, extra = '') {
  // A fresh configuration object each time, as a restarted process would have.
  return createContext(testConfig(dir, extra), { clock: fixedClock(), log: silentLogger });
}

test('the pairwise sub is stable across restarts and key rotations', async () => {
  const d = tempDir();
  dirs.push(d);
  const first = await boot(d.dir);
  const before = await subjectFor(first, 'app_one', 'psn_ada');
  expect(before).toMatch(/^[A-Za-z0-9_-]{43}$/);
  await rotateManually(first, { immediate: true });
  await rotateManually(first, { immediate: true });
  expect(await subjectFor(first, 'app_one', 'psn_ada')).toBe(before);
  first.db.close();
  const second = await boot(d.dir);
  expect(await subjectFor(second, 'app_one', 'psn_ada')).toBe(before);
  second.db.close();
});

test('the pairwise sub differs per application and per person', async () => {
  const d = tempDir();
  dirs.push(d);
  const ctx = await boot(d.dir);
  const a = await subjectFor(ctx, 'app_one', 'psn_ada');
  expect(await subjectFor(ctx, 'app_two', 'psn_ada')).not.toBe(a);
  expect(await subjectFor(ctx, 'app_one', 'psn_ben')).not.toBe(a);
  ctx.db.close();
});

test('another instance (another secret) gives other subjects; a configured secret is used as is', async () => {
  const d1 = tempDir();
  const d2 = tempDir();
  dirs.push(d1, d2);
  const one = await boot(d1.dir);
  const two = await boot(d2.dir);
  expect(await subjectFor(two, 'app_one', 'psn_ada')).not.toBe(await subjectFor(one, 'app_one', 'psn_ada'));
  one.db.close();
  two.db.close();
  const d3 = tempDir();
  const d4 = tempDir();
  dirs.push(d3, d4);
  const x = await boot(d3.dir, '[oidc]\npairwise_secret = "shared-secret-value-of-thirty-two-bytes"');
  const y = await boot(d4.dir, '[oidc]\npairwise_secret = "shared-secret-value-of-thirty-two-bytes"');
  expect(await subjectFor(x, 'app_one', 'psn_ada')).toBe(await subjectFor(y, 'app_one', 'psn_ada'));
  x.db.close();
  y.db.close();
});
