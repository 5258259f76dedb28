import { afterEach, expect, test } from 'bun:test';
import { createSigninThrottle } from '../../src/identity/signin-throttle.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

const NOW = 1_800_000_000;

test('IPv6 guesses are counted per /64: a fresh address from the same network does not reset the count', async () => {
  ctx = await testContext();
  const t = createSigninThrottle(ctx.db, { perAccount: 100, perIp: 3, window: 600 });
  for (const [i, ip] of ['2001:db8:1:2::a', '2001:db8:1:2:ffff::b', '2001:0db8:0001:0002::c'].entries())
    t.recordFailure(`person${i}@example.com`, ip, NOW);
  expect(t.blocked('new@example.com', '2001:db8:1:2:dead:beef:0:1', NOW)).toBe(true);
  expect(t.blocked('new@example.com', '2001:db8:1:3::1', NOW)).toBe(false);
  expect(t.blocked('new@example.com', '2001:db8:1:2::1', NOW + 600)).toBe(false);
});

test('an IPv4 address counts the same written plainly or IPv4-mapped, and one IPv4 address is not its neighbour', async () => {
  ctx = await testContext();
  const t = createSigninThrottle(ctx.db, { perAccount: 100, perIp: 2, window: 600 });
  t.recordFailure('a@example.com', '198.51.100.7', NOW);
  t.recordFailure('b@example.com', '::ffff:198.51.100.7', NOW);
  expect(t.blocked('c@example.com', '198.51.100.7', NOW)).toBe(true);
  expect(t.blocked('c@example.com', '::ffff:c633:6407', NOW)).toBe(true);
  expect(t.blocked('c@example.com', '198.51.100.8', NOW)).toBe(false);
});
