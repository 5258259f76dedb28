import { afterEach, expect, test } from 'bun:test';
import { grantConsent } from '../../src/consent/grant.ts';
import { revokePersonConsents } from '../../src/consent/lifecycle.ts';
import { openDb } from '../../src/db/open.ts';
import { unix } from '../../src/platform/clock.ts';
import { createTestApp } from '../helpers/apps.ts';
import { type TestContext, testContext, testToml } from '../helpers/context.ts';
import { REDIRECT } from '../oauth/fixtures.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

// On PostgreSQL a transaction that loses to another instance's runs again from the start: what its
// lost attempt ended must not be reported (nor logged, nor counted) as well.
// PostgreSQL's own mechanism (SQLite's one writer never loses a transaction), so named, in either suite.
test('consents ended by a transaction run again are reported once', async () => {
  ctx = await testContext({ engine: 'postgres' });
  const app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: ['openid'],
  });
  for (const purpose of ['one', 'two'])
    await grantConsent(ctx, {
      applicationId: app.applicationId,
      environment: 'sandbox',
      environmentId: app.environmentId,
      personId: 'psn_sandbox_ada',
      sessionIdHash: null,
      purpose,
      scopes: ['openid'],
    });
  const other = await openDb(/url = "([^"]+)"/.exec(testToml(ctx.dir, '', 'postgres'))![1]!);
  const prepare = ctx.db.sql.prepare.bind(ctx.db.sql);
  let ends = 0;
  // Another instance ends the second consent (its person revoked it) just before this one does.
  ctx.db.sql.prepare = ((text: string) => {
    const s = prepare(text);
    if (!text.startsWith('UPDATE consents SET status')) return s;
    return {
      ...s,
      run: (...p: unknown[]) => {
        if (++ends === 2)
          other.sql
            .prepare(
              "UPDATE consents SET status = 'revoked', end_reason = 'revoked_by_person', ended_at = ? WHERE id = ?",
            )
            .run(unix(ctx.clock), p[3]);
        return s.run(...p);
      },
    };
  }) as typeof ctx.db.sql.prepare;
  try {
    const ended = await revokePersonConsents(ctx, 'psn_sandbox_ada');
    expect(ends).toBeGreaterThan(2);
    // The other instance ended one of the two; this one ended the other, once.
    expect(ended).toHaveLength(1);
  } finally {
    other.close();
  }
  // In the SQLite suite this may be the test that starts the PostgreSQL server (initdb and all).
}, 60_000);
