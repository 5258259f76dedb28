import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { listAudit, recordAudit } from '../../src/audit/audit.store.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext;
beforeEach(async () => {
  ctx = await testContext();
});
afterEach(() => ctx.cleanup());

describe('audit log', () => {
  test('records actor, action, target, details and time; lists newest first', () => {
    recordAudit(ctx.db, ctx.clock, {
      actor: 'cli',
      action: 'application.create',
      target: 'app_1',
      details: { name: 'A' },
    });
    ctx.clock.advance(5000);
    recordAudit(ctx.db, ctx.clock, {
      actor: 'developer:dev_1',
      action: 'application.update',
      target: 'app_1',
    });
    const rows = listAudit(ctx.db);
    expect(rows.map((r) => r.action)).toEqual(['application.update', 'application.create']);
    expect(rows[1]).toMatchObject({ actor: 'cli', target: 'app_1', details: { name: 'A' } });
    expect(rows[0]!.at - rows[1]!.at).toBe(5);
    expect(rows[0]!.details).toEqual({});
  });

  test('filters by action and target, and pages with before', () => {
    for (let i = 0; i < 5; i++)
      recordAudit(ctx.db, ctx.clock, { actor: 'cli', action: 'a', target: `t${i % 2}` });
    recordAudit(ctx.db, ctx.clock, { actor: 'system', action: 'b' });
    expect(listAudit(ctx.db, { action: 'a' }).length).toBe(5);
    expect(listAudit(ctx.db, { target: 't1' }).length).toBe(2);
    const first = listAudit(ctx.db, { limit: 2 });
    expect(first.length).toBe(2);
    const next = listAudit(ctx.db, { limit: 10, before: first[1]!.id });
    expect(next.length).toBe(4);
  });

  test('a row recorded inside a rolled-back transaction disappears with the change', () => {
    expect(() =>
      ctx.db.sql.transaction(() => {
        recordAudit(ctx.db, ctx.clock, { actor: 'cli', action: 'x' });
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(listAudit(ctx.db)).toEqual([]);
  });
});

describe('verity audit list', () => {
  test('prints entries newest first, filters, and refuses a bad limit', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { cli } = await import('../helpers/cli.ts');
    const { testToml } = await import('../helpers/context.ts');
    const config = join(ctx.dir, 'cli.toml');
    writeFileSync(config, testToml(ctx.dir));
    recordAudit(ctx.db, ctx.clock, {
      actor: 'cli',
      action: 'developer.create',
      target: 'dev_1',
      details: { email: 'a@example.com' },
    });
    recordAudit(ctx.db, ctx.clock, { actor: 'cli', action: 'api_key.create', target: 'key_1' });
    const all = await cli('audit', 'list', '--config', config, '--json');
    expect(all.code).toBe(0);
    expect(all.json.entries.map((e: { action: string }) => e.action)).toEqual([
      'api_key.create',
      'developer.create',
    ]);
    expect(all.json.entries[1]).toMatchObject({
      actor: 'cli',
      target: 'dev_1',
      details: { email: 'a@example.com' },
      at: '2026-06-01T12:00:00.000Z',
    });
    const one = await cli('audit', 'list', '--config', config, '--target', 'dev_1');
    expect(one.stdout).toContain('developer.create');
    expect(one.stdout).not.toContain('api_key.create');
    expect((await cli('audit', 'list', '--config', config, '--limit', 'ten')).code).toBe(2);
  });
});
