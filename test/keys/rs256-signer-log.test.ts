import { afterEach, expect, test } from 'bun:test';
import { KeyService } from '../../src/keys/signing-keys.ts';
import { silentLogger } from '../../src/log.ts';
import { runtime } from '../../src/platform/runtime.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

// The listening line no longer names the RS256 signer (reading it loads libcrypto under Bun, which an
// idle server does without): the first RS256 signature names it, once.

let ctx: TestContext | undefined;
afterEach(() => ctx?.cleanup());

test('the first RS256 signature logs which signer makes it, once; ES256 and EdDSA log nothing', async () => {
  ctx = await testContext();
  const lines: [string, unknown][] = [];
  const keys = new KeyService(ctx.db, ctx.config, ctx.clock, {
    ...silentLogger,
    info: (msg, fields) => void lines.push([msg, fields]),
  });
  try {
    for (const alg of ['ES256', 'EdDSA'] as const) await keys.sign(await keys.signingKey(alg), 'x');
    expect(lines).toEqual([]);
    const rs256 = await keys.signingKey();
    await keys.sign(rs256, 'a');
    await keys.sign(rs256, 'b');
    expect(lines).toEqual([['RS256 signer', { provider: runtime.rs256Provider }]]);
  } finally {
    keys.close();
  }
});
