import { afterEach, expect, test } from 'bun:test';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { rotateDue } from '../../src/keys/rotation.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

const kids = async () =>
  (JSON.parse(await ctx.keys.jwksBody()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

test('a next key whose file could not be read once is published again a second later, not at its promotion', async () => {
  ctx = await testContext({ extra: 'rotate_every = "30d"\npublish_ahead = "1h"' });
  ctx.clock.advance(30 * 24 * 3_600_000 - 3_600_000);
  await rotateDue(ctx);
  const next = ctx.keys.store.nextSet().find((k) => k.alg === 'RS256')!.kid;
  const file = join(ctx.config.keys.dir, `${next}.jwk.json`);
  // The file cannot be read just when this process first builds the new key set's JWKS.
  renameSync(file, `${file}.away`);
  try {
    expect(await kids()).not.toContain(next);
  } finally {
    renameSync(`${file}.away`, file);
  }
  expect(await kids()).not.toContain(next);
  ctx.clock.advance(1000);
  expect(await kids()).toContain(next);
});
