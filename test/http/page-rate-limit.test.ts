import { afterEach, expect, test } from 'bun:test';
import { countPage } from '../../src/http/rate-limit.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext | undefined;
afterEach(() => ctx?.cleanup());

test('page counts stay bounded under a flood of addresses: the oldest window makes room', async () => {
  ctx = await testContext({ extra: '[rate_limits.web]\nrequests = 2\nwindow = "1m"' });
  expect(countPage(ctx, 'ip:198.51.100.1').remaining).toBe(1);
  expect(countPage(ctx, 'ip:198.51.100.1').allowed).toBe(true);
  expect(countPage(ctx, 'ip:198.51.100.1').allowed).toBe(false);
  // Within one window, 100,000 other addresses push the first one's window out of memory.
  for (let i = 0; i < 100_000; i++) countPage(ctx, `ip:flood-${i}`);
  expect(countPage(ctx, 'ip:198.51.100.1')).toMatchObject({ allowed: true, remaining: 1 });
  // The newest ones are still counted.
  expect(countPage(ctx, 'ip:flood-99999').remaining).toBe(0);
});
