import { expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { onPostgres, testContext } from '../helpers/context.ts';

// PostgreSQL keeps its files in its own data directory, under its own user.
test.skipIf(onPostgres)('the database file and its WAL are readable by their owner only', async () => {
  const ctx = await testContext();
  try {
    const path = join(ctx.dir, 'verity.db');
    ctx.db.sql.prepare("INSERT INTO audit_log (at, actor, action) VALUES (1, 'cli', 'test')").run();
    for (const f of [path, `${path}-wal`]) expect(statSync(f).mode & 0o777).toBe(0o600);
  } finally {
    ctx.cleanup();
  }
});
