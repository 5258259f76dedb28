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
