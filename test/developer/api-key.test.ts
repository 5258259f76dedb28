import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { listAudit } from '../../src/audit/audit.store.ts';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import {
  authenticateApiKey,
  createApiKey,
  listApiKeys,
  MAX_ACTIVE_KEYS,
  revokeApiKey,
} from '../../src/developer/api-key.store.ts';
import { createDeveloper, setDeveloperStatus } from '../../src/developer/developer.store.ts';
import { ValidationError } from '../../src/errors.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { storedText } from '../helpers/db-probes.ts';

let ctx: TestContext;
let developerId: string;
beforeEach(async () => {
  ctx = await testContext();
  developerId = createDeveloper(ctx.db, ctx.clock, { email: 'dev@example.com' }).developerId;
});
afterEach(() => ctx.cleanup());

/** The whole database as bytes, after the WAL has been folded in. */
function dbBytes(): string {
  return storedText(ctx.db);
}

describe('developer API keys', () => {
  test('at most 10 active keys per developer and environment; revoking one makes room', async () => {
    const keys = [];
    for (let i = 0; i < MAX_ACTIVE_KEYS; i++)
      keys.push(await createApiKey(ctx.db, ctx.clock, developerId, 'sandbox'));
    expect(MAX_ACTIVE_KEYS).toBe(10);
    const eleventh = createApiKey(ctx.db, ctx.clock, developerId, 'sandbox');
    await expect(eleventh).rejects.toBeInstanceOf(ValidationError);
    await expect(eleventh).rejects.toThrow('at most 10 active sandbox keys');
    expect(listApiKeys(ctx.db, developerId)).toHaveLength(10);
    // The other environment has its own ten.
    await createApiKey(ctx.db, ctx.clock, developerId, 'production');
    revokeApiKey(ctx.db, ctx.clock, keys[0]!.keyId);
    await createApiKey(ctx.db, ctx.clock, developerId, 'sandbox');
    expect(listApiKeys(ctx.db, developerId).filter((k) => k.revokedAt === null)).toHaveLength(11);
  });

  test('keys carry their environment prefix and authenticate to their developer and environment', async () => {
    const sandbox = await createApiKey(ctx.db, ctx.clock, developerId, 'sandbox');
    const production = await createApiKey(ctx.db, ctx.clock, developerId, 'production');
    expect(sandbox.key).toMatch(/^dk_test_[A-Za-z0-9_-]{43}$/);
    expect(production.key).toMatch(/^dk_live_[A-Za-z0-9_-]{43}$/);
    expect(await authenticateApiKey(ctx.db, ctx.clock, sandbox.key)).toEqual({
      keyId: sandbox.keyId,
      developerId,
      environment: 'sandbox',
    });
    expect((await authenticateApiKey(ctx.db, ctx.clock, production.key))?.environment).toBe('production');
  });

  test('the clear key is never stored; its SHA-256 is', async () => {
    const { key } = await createApiKey(ctx.db, ctx.clock, developerId, 'sandbox');
    const raw = dbBytes();
    expect(raw.includes(key)).toBe(false);
    expect(raw.includes(key.slice('dk_test_'.length))).toBe(false);
    expect(raw.includes(await sha256Hex(key))).toBe(true);
  });

  test('a revoked key stops working at once', async () => {
    const { keyId, key } = await createApiKey(ctx.db, ctx.clock, developerId, 'sandbox');
    revokeApiKey(ctx.db, ctx.clock, keyId, { actor: 'cli' });
    expect(await authenticateApiKey(ctx.db, ctx.clock, key)).toBeUndefined();
    expect(listApiKeys(ctx.db, developerId)[0]!.revokedAt).not.toBeNull();
  });

  test('unknown, malformed and altered keys are rejected', async () => {
    const { key } = await createApiKey(ctx.db, ctx.clock, developerId, 'sandbox');
    for (const bad of [
      '',
      'dk_test_',
      'nope',
      key.slice(0, -1),
      `${key}x`,
      key.toUpperCase(),
      `Bearer ${key}`,
    ])
      expect(await authenticateApiKey(ctx.db, ctx.clock, bad)).toBeUndefined();
  });

  test('a key presented with the other environment prefix is rejected', async () => {
    const { key } = await createApiKey(ctx.db, ctx.clock, developerId, 'sandbox');
    const relabelled = key.replace(/^dk_test_/, 'dk_live_');
    expect(await authenticateApiKey(ctx.db, ctx.clock, relabelled)).toBeUndefined();
    // Even a row whose hash matched but whose environment differs is refused (raw SQL: a tampered row).
    const forged = 'dk_live_forged';
    ctx.db.sql
      .prepare('UPDATE developer_api_keys SET key_hash = ? WHERE developer_id = ?')
      .run(await sha256Hex(forged), developerId);
    expect(await authenticateApiKey(ctx.db, ctx.clock, forged)).toBeUndefined();
  });

  test('a disabled developer cannot use their keys', async () => {
    const { key } = await createApiKey(ctx.db, ctx.clock, developerId, 'sandbox');
    setDeveloperStatus(ctx.db, ctx.clock, developerId, 'disabled');
    expect(await authenticateApiKey(ctx.db, ctx.clock, key)).toBeUndefined();
  });

  test('use updates last_used_at', async () => {
    const { key } = await createApiKey(ctx.db, ctx.clock, developerId, 'sandbox');
    expect(listApiKeys(ctx.db, developerId)[0]!.lastUsedAt).toBeNull();
    ctx.clock.advance(60_000);
    await authenticateApiKey(ctx.db, ctx.clock, key);
    expect(listApiKeys(ctx.db, developerId)[0]!.lastUsedAt).toBe(
      Math.floor(ctx.clock.now().getTime() / 1000),
    );
  });

  test('creating and revoking keys is audited without the key', async () => {
    const { keyId, key } = await createApiKey(ctx.db, ctx.clock, developerId, 'production', { actor: 'cli' });
    revokeApiKey(ctx.db, ctx.clock, keyId);
    const rows = listAudit(ctx.db, { target: keyId });
    expect(rows.map((r) => [r.actor, r.action])).toEqual([
      [`developer:${developerId}`, 'api_key.revoke'],
      ['cli', 'api_key.create'],
    ]);
    expect(JSON.stringify(rows)).not.toContain(key);
  });

  test('keys for an unknown developer are refused', async () => {
    await expect(createApiKey(ctx.db, ctx.clock, 'dev_nope', 'sandbox')).rejects.toThrow('not found');
  });
});
