import { afterEach, describe, expect, test } from 'bun:test';
import { liveCapabilities } from '../../src/capabilities/availability.ts';
import { cacheVersion } from '../../src/db/cache-versions.ts';
import { type Db, databaseTarget, openDb } from '../../src/db/open.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { nextTurn } from '../helpers/wait.ts';

let ctx: TestContext;
let other: Db;
afterEach(() => {
  other?.close();
  ctx?.cleanup();
});

/** A context, and a second connection to its database standing for another process (the CLI). */
async function setup() {
  ctx = await testContext();
  other = await openDb(databaseTarget(ctx.config));
}

describe('cache versions', () => {
  test("another process's change to the overrides is served from the next turn on", async () => {
    await setup();
    const bodies = liveCapabilities(ctx.db);
    const before = JSON.stringify(bodies());
    const v = cacheVersion(ctx.db, 'capabilities');
    other.sql
      .prepare(
        "INSERT INTO capability_overrides (country, document_type, available, updated_at) VALUES ('DE', 'passport', 0, 1)",
      )
      .run();
    await nextTurn();
    expect(cacheVersion(ctx.db, 'capabilities')).toBe(v + 1);
    expect(JSON.stringify(bodies())).not.toBe(before);
  });

  test('a signing key retired by another process signs no further token, without waiting', async () => {
    await setup();
    const { kid } = await ctx.keys.signingKey();
    other.sql.prepare("UPDATE signing_keys SET state = 'retired' WHERE kid = ?").run(kid);
    await nextTurn();
    await expect(ctx.keys.signingKey()).rejects.toThrow('no active RS256 signing key');
    expect(await ctx.keys.jwksBody()).toContain(kid);
  });
});
