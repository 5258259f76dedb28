import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { type Db, databaseTarget, openDb } from '../../src/db/open.ts';
import {
  clientRegistry,
  findClient,
  redirectUrisOf,
  verifyClientSecret,
} from '../../src/oauth/client.store.ts';
import { unix } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { nextTurn } from '../helpers/wait.ts';
import { basic, inProcess, mintCode, REDIRECT, tokenRequest } from './fixtures.ts';

// The OAuth endpoints keep clients in memory (client.store.ts). These tests change a client the way
// an operator would, from another connection to the same database (the CLI is another process), and
// check that the very next request sees the change (a test that reads directly waits for the next turn,
// as any request arriving after the change would: see nextTurn).

let ctx: TestContext;
let other: Db;
let app: TestApp;
let request: ReturnType<typeof inProcess>;

beforeEach(async () => {
  ctx = await testContext({ extra: '[rate_limits.oauth]\nrequests = 10000' });
  other = await openDb(databaseTarget(ctx.config));
  request = inProcess(ctx);
  app = await createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: ['openid', 'profile'],
  });
});
afterEach(() => {
  other.close();
  ctx.cleanup();
});

const exchange = async () => {
  const m = await mintCode(ctx, app);
  return request(
    '/v1/oauth/token',
    tokenRequest(
      {
        grant_type: 'authorization_code',
        code: m.code,
        redirect_uri: m.redirectUri,
        code_verifier: m.verifier,
      },
      { auth: basic(app.clientId, app.clientSecret!) },
    ),
  );
};

const authorize = () =>
  request(
    `/v1/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'st',
      nonce: 'n',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWkrR5Wz0Z4nmAU'.slice(0, 43),
      code_challenge_method: 'S256',
    })}`,
  );

const version = (db: Db) =>
  db.sql.prepare<{ version: number }>("SELECT version FROM cache_versions WHERE name = 'clients'").get()!
    .version;

describe('a change made by another process is seen by the next request', () => {
  test('a revoked client secret is refused at once', async () => {
    expect((await exchange()).status).toBe(200);
    other.sql
      .prepare('UPDATE client_secrets SET revoked_at = ? WHERE environment_id = ?')
      .run(unix(ctx.clock), app.environmentId);
    const res = await exchange();
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
  });

  test('a secret revoked for later keeps working until then, and not after', async () => {
    const now = unix(ctx.clock);
    other.sql
      .prepare('UPDATE client_secrets SET revoked_at = ? WHERE environment_id = ?')
      .run(now + 60, app.environmentId);
    expect((await exchange()).status).toBe(200);
    ctx.clock.advance(60_000);
    expect((await exchange()).status).toBe(401);
  });

  test('a removed redirect URI is no longer matched', async () => {
    expect((await authorize()).status).toBe(303);
    other.sql.prepare('DELETE FROM redirect_uris WHERE environment_id = ?').run(app.environmentId);
    expect((await authorize()).status).toBe(400);
  });

  test('a post-logout redirect URI added or removed elsewhere is served on the next read', async () => {
    const registered = () => clientRegistry(ctx).postLogoutRedirectUris(app.environmentId);
    expect(registered()).toEqual([]);
    other.sql
      .prepare('INSERT INTO post_logout_redirect_uris (environment_id, uri) VALUES (?, ?)')
      .run(app.environmentId, 'https://app.example/bye');
    await nextTurn();
    expect(registered()).toEqual(['https://app.example/bye']);
    other.sql
      .prepare('DELETE FROM post_logout_redirect_uris WHERE environment_id = ?')
      .run(app.environmentId);
    await nextTurn();
    expect(registered()).toEqual([]);
  });

  test('a deleted application (its environments go with it) is an unknown client', async () => {
    expect(findClient(ctx, app.clientId)?.applicationId).toBe(app.applicationId);
    other.sql.prepare('DELETE FROM applications WHERE id = ?').run(app.applicationId);
    await nextTurn();
    expect(findClient(ctx, app.clientId)).toBeUndefined();
    expect((await authorize()).status).toBe(400);
  });

  test('a changed application is read again', async () => {
    expect(findClient(ctx, app.clientId)?.pkce).toBe('required');
    other.sql.prepare("UPDATE applications SET pkce = 'public-only' WHERE id = ?").run(app.applicationId);
    await nextTurn();
    expect(findClient(ctx, app.clientId)?.pkce).toBe('public-only');
  });
});

describe('the clients cache version', () => {
  test('moves on every insert, update and delete of every table a client is read from', () => {
    const changes: [string, () => void][] = [
      [
        'applications update',
        () => other.sql.exec(`UPDATE applications SET name = 'Renamed' WHERE id = '${app.applicationId}'`),
      ],
      [
        'environments update',
        () =>
          other.sql.exec(
            `UPDATE application_environments SET scopes = '["openid"]' WHERE id = '${app.environmentId}'`,
          ),
      ],
      [
        'redirect insert',
        () =>
          other.sql.exec(
            `INSERT INTO redirect_uris (environment_id, uri) VALUES ('${app.environmentId}', 'https://app.example/other')`,
          ),
      ],
      [
        'redirect update',
        () =>
          other.sql.exec(
            `UPDATE redirect_uris SET uri = 'https://app.example/third' WHERE uri = 'https://app.example/other'`,
          ),
      ],
      [
        'redirect delete',
        () => other.sql.exec(`DELETE FROM redirect_uris WHERE uri = 'https://app.example/third'`),
      ],
      [
        'post-logout insert',
        () =>
          other.sql.exec(
            `INSERT INTO post_logout_redirect_uris (environment_id, uri) VALUES ('${app.environmentId}', 'https://app.example/bye')`,
          ),
      ],
      [
        'post-logout update',
        () =>
          other.sql.exec(
            `UPDATE post_logout_redirect_uris SET uri = 'https://app.example/ciao' WHERE uri = 'https://app.example/bye'`,
          ),
      ],
      [
        'post-logout delete',
        () => other.sql.exec(`DELETE FROM post_logout_redirect_uris WHERE uri = 'https://app.example/ciao'`),
      ],
      [
        'secret insert',
        () =>
          other.sql.exec(
            `INSERT INTO client_secrets (id, environment_id, secret_hash, created_at) VALUES ('sec_x', '${app.environmentId}', 'h', 0)`,
          ),
      ],
      ['secret update', () => other.sql.exec(`UPDATE client_secrets SET revoked_at = 1 WHERE id = 'sec_x'`)],
      ['secret delete', () => other.sql.exec(`DELETE FROM client_secrets WHERE id = 'sec_x'`)],
      [
        'environment delete (cascading)',
        () => other.sql.exec(`DELETE FROM application_environments WHERE id = '${app.environmentId}'`),
      ],
      [
        'applications delete',
        () => other.sql.exec(`DELETE FROM applications WHERE id = '${app.applicationId}'`),
      ],
    ];
    for (const [label, change] of changes) {
      const before = version(ctx.db);
      change();
      expect({ label, moved: version(ctx.db) > before }).toEqual({ label, moved: true });
    }
    const before = version(ctx.db);
    other.sql.exec(`INSERT INTO applications (id, name, type, pkce, full_number_approved, plan, created_at, updated_at)
      VALUES ('app_new', 'New', 'public', 'required', 0, 'default', 0, 0)`);
    other.sql.exec(`INSERT INTO application_environments (id, application_id, environment, client_id, scopes, created_at)
      VALUES ('env_new', 'app_new', 'sandbox', 'cid_test_new', '[]', 0)`);
    expect(version(ctx.db)).toBe(before + 2);
  });

  test('what a transaction read and then rolled back is never served afterwards', () => {
    const original = [...redirectUrisOf(ctx, app.environmentId)];
    expect(() =>
      ctx.db.sql.transaction(() => {
        ctx.db.sql
          .prepare('UPDATE redirect_uris SET uri = ? WHERE environment_id = ?')
          .run('https://evil.example/', app.environmentId);
        expect(redirectUrisOf(ctx, app.environmentId)).toEqual(['https://evil.example/']);
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    // Another commit brings the version to the number the rolled-back transaction had seen.
    other.sql.exec(`UPDATE applications SET name = 'Other' WHERE id = '${app.applicationId}'`);
    expect(redirectUrisOf(ctx, app.environmentId)).toEqual(original);
  });

  // A preflight needs no credentials and counts against no limit: the origins it names must not fill
  // the cache, which starts over once full and would drop every client it held.
  test('origins no application registered are not kept, so they cannot evict the clients', () => {
    expect(findClient(ctx, app.clientId)?.pkce).toBe('required');
    // Changed behind the cache's back: the version is put back, so only a reload would see it.
    const version = other.sql.prepare<{ version: number }>(
      "SELECT version FROM cache_versions WHERE name = 'clients'",
    );
    const before = version.get()!.version;
    other.sql.prepare("UPDATE applications SET pkce = 'public-only' WHERE id = ?").run(app.applicationId);
    other.sql.prepare("UPDATE cache_versions SET version = ? WHERE name = 'clients'").run(before);
    const registry = clientRegistry(ctx);
    for (let i = 0; i < 10_001; i++)
      expect(registry.originRegistered(`https://${i}.attacker.example`)).toBe(false);
    expect(findClient(ctx, app.clientId)?.pkce).toBe('required');
  });

  test('the secret check still compares against current secrets only', () => {
    const now = unix(ctx.clock);
    const client = findClient(ctx, app.clientId)!;
    expect(verifyClientSecret(ctx, client, app.clientSecret!, now)).toBe(true);
    expect(verifyClientSecret(ctx, client, `${app.clientSecret!}x`, now)).toBe(false);
    expect(Object.isFrozen(client) && Object.isFrozen(client.scopes)).toBe(true);
  });
});
