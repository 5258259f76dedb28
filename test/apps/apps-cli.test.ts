import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import { cli } from '../helpers/cli.ts';
import { tempDir, testDatabase, testToml } from '../helpers/context.ts';
import { storedText } from '../helpers/db-probes.ts';

// One database for the file: each test creates its own applications, so they do not interfere.
let dir: { dir: string; cleanup(): void };
let config: string;
beforeAll(async () => {
  dir = tempDir('verity-apps-cli');
  config = join(dir.dir, 'verity.toml');
  writeFileSync(config, testToml(dir.dir, '[server]\nbase_url = "https://id.example.com"'));
  expect((await cli('migrate', '--config', config)).code).toBe(0);
});
afterAll(() => dir.cleanup());

const run = (...argv: string[]) => cli(...argv, '--config', config);

const CREATE = [
  'apps',
  'create',
  '--name',
  'Shop',
  '--type',
  'confidential',
  '--redirect-uri',
  'https://shop.example.com/cb',
  '--redirect-uri',
  'http://localhost:3000/cb',
  '--scopes',
  'openid email age_over_18',
];

async function create(...extra: string[]) {
  const r = await run(...CREATE, ...extra, '--json');
  expect(r.code).toBe(0);
  return r.json as { applicationId: string; environment: string; clientId: string; clientSecret?: string };
}

/** The database file's bytes after folding the WAL in, to look for clear-text secrets. */
async function dbBytes(): Promise<string> {
  const { openDb } = await import('../../src/db/open.ts');
  const db = await openDb(testDatabase(dir.dir));
  try {
    return storedText(db);
  } finally {
    db.close();
  }
}

describe('verity apps', () => {
  test('create --json prints exactly the documented shape; the secret is stored only as its hash', async () => {
    const r = await run(...CREATE, '--json');
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(['applicationId', 'clientId', 'clientSecret', 'environment']);
    expect(r.json.environment).toBe('sandbox');
    expect(r.json.clientId).toMatch(/^cid_test_/);
    expect(r.json.clientSecret).toMatch(/^cs_test_/);
    const raw = await dbBytes();
    expect(raw.includes(r.json.clientSecret)).toBe(false);
    expect(raw.includes(await sha256Hex(r.json.clientSecret))).toBe(true);
  });

  test('a public client gets no clientSecret key at all', async () => {
    const r = await run(...CREATE.map((a) => (a === 'confidential' ? 'public' : a)), '--json');
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(['applicationId', 'clientId', 'environment']);
  });

  test('human output shows the secret once with a warning', async () => {
    const r = await run(...CREATE);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/client secret: cs_test_/);
    expect(r.stdout).toContain('shown only now');
  });

  test('a rule violation exits 1 naming the rule; a usage error exits 2', async () => {
    const bad = await run(
      ...CREATE.map((a) => (a === 'https://shop.example.com/cb' ? 'https://*.example.com/cb' : a)),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('redirect URI "https://*.example.com/cb": wildcards are not allowed');
    const badJson = await run(...CREATE, '--scopes', 'openid document_number_full', '--json');
    expect(badJson.code).toBe(1);
    expect(badJson.json.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'document_number_full is never granted in sandbox (production only, after review)',
      fields: [{ path: 'scopes' }],
    });
    const unknown = await run(...CREATE.slice(0, -1), 'openid wizardry', '--json');
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.message).toContain('unknown scope "wizardry"');
    const http = await run(
      ...CREATE.map((a) => (a === 'https://shop.example.com/cb' ? 'http://example.com' : a)),
    );
    expect(http.code).toBe(1);
    expect(http.stderr).toContain('must use https');

    const missing = await run('apps', 'create', '--name', 'X', '--type', 'public', '--scopes', 'openid');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--redirect-uri is required');
    expect((await run(...CREATE, '--colour', 'blue')).code).toBe(2);
    expect((await run('apps', 'show')).code).toBe(2);
  });

  test('an operand too many, or a short flag nobody defined, is a usage error and changes nothing', async () => {
    const a = await create();
    const b = await create();
    const both = await run('apps', 'delete', a.applicationId, b.applicationId, '--yes', '--json');
    expect(both.code).toBe(2);
    expect(both.json.error).toMatchObject({
      code: 'USAGE',
      message: `unexpected argument "${b.applicationId}"`,
    });
    expect((await run('apps', 'show', a.applicationId)).code).toBe(0);
    expect((await run('apps', 'list', '-x')).code).toBe(2);
  });

  test('show and list never print secrets; flags may come before positionals', async () => {
    const app = await create();
    const show = await run('apps', 'show', '--json', app.applicationId);
    expect(show.code).toBe(0);
    expect(show.json).toMatchObject({
      applicationId: app.applicationId,
      name: 'Shop',
      type: 'confidential',
      environments: [
        {
          environment: 'sandbox',
          clientId: app.clientId,
          scopes: ['openid', 'email', 'age_over_18'],
          redirectUris: ['https://shop.example.com/cb', 'http://localhost:3000/cb'],
          activeSecrets: 1,
        },
      ],
      latestReview: null,
    });
    expect(show.stdout).not.toContain(app.clientSecret!);
    const human = await run('apps', 'show', app.applicationId);
    expect(human.stdout).toContain(app.clientId);
    expect(human.stdout).toContain('production: not yet');
    expect(human.stdout).not.toContain('cs_test_');
    const list = await run('apps', 'list', '--json');
    expect(
      list.json.applications.some((a: { applicationId: string }) => a.applicationId === app.applicationId),
    ).toBe(true);
    expect(list.stdout).not.toContain('cs_test_');
    const missing = await run('apps', 'show', 'app_nope', '--json');
    expect(missing.code).toBe(1);
    expect(missing.json.error.message).toContain('not found');
  });

  test('post-logout redirect URIs: --post-logout-redirect-uri on create, add and remove on update', async () => {
    const app = await create('--post-logout-redirect-uri', 'https://shop.example.com/bye');
    const shown = await run('apps', 'show', app.applicationId, '--json');
    expect(shown.json.environments[0].postLogoutRedirectUris).toEqual(['https://shop.example.com/bye']);
    const r = await run(
      'apps',
      'update',
      app.applicationId,
      '--add-post-logout-redirect-uri',
      'http://localhost:3000/bye',
      '--remove-post-logout-redirect-uri',
      'https://shop.example.com/bye',
      '--json',
    );
    expect(r.code).toBe(0);
    expect(r.json.environments[0].postLogoutRedirectUris).toEqual(['http://localhost:3000/bye']);
    const human = await run('apps', 'show', app.applicationId);
    expect(human.stdout).toContain('post-logout:    http://localhost:3000/bye');
    for (const [uri, problem] of [
      ['https://*.example.com/bye', 'wildcards are not allowed'],
      ['https://shop.example.com/bye#x', 'fragments are not allowed'],
      ['http://shop.example.com/bye', 'must use https'],
    ]) {
      const bad = await run('apps', 'update', app.applicationId, '--post-logout-redirect-uri', uri!);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain(`post-logout redirect URI "${uri}": ${problem}`);
    }
    const unchanged = await run('apps', 'show', app.applicationId, '--json');
    expect(unchanged.json.environments[0].postLogoutRedirectUris).toEqual(['http://localhost:3000/bye']);
  });

  test('update changes URIs, scopes and policy, and refuses rule violations', async () => {
    const app = await create();
    const r = await run(
      'apps',
      'update',
      app.applicationId,
      '--add-redirect-uri',
      'https://shop.example.com/cb2',
      '--remove-redirect-uri',
      'http://localhost:3000/cb',
      '--scopes',
      'openid profile',
      '--document-types',
      'passport',
      '--document-countries',
      'DE',
      '--name',
      'Shop Two',
      '--json',
    );
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      name: 'Shop Two',
      environments: [
        {
          redirectUris: ['https://shop.example.com/cb', 'https://shop.example.com/cb2'],
          scopes: ['openid', 'profile'],
          documentTypes: ['passport'],
          documentCountries: ['DE'],
        },
      ],
    });
    const bad = await run(
      'apps',
      'update',
      app.applicationId,
      '--add-redirect-uri',
      'https://u:p@example.com/cb',
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('userinfo');
    const prod = await run('apps', 'update', app.applicationId, '--env', 'production', '--scopes', 'openid');
    expect(prod.code).toBe(1);
    expect(prod.stderr).toContain('exists only after "apps review approve"');
    expect(
      (await run('apps', 'update', app.applicationId, '--env', 'staging', '--scopes', 'openid')).code,
    ).toBe(2);
  });

  test('secret rotate --json gives { clientId, clientSecret }', async () => {
    const app = await create();
    const r = await run('apps', 'secret', 'rotate', app.applicationId, '--env', 'sandbox', '--json');
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(['clientId', 'clientSecret']);
    expect(r.json.clientId).toBe(app.clientId);
    expect(r.json.clientSecret).toMatch(/^cs_test_/);
    expect(r.json.clientSecret).not.toBe(app.clientSecret);
    expect((await run('apps', 'secret', 'rotate', app.applicationId)).code).toBe(2);
    const noProd = await run('apps', 'secret', 'rotate', app.applicationId, '--env', 'production', '--json');
    expect(noProd.code).toBe(1);
  });

  test('production review: request, list, reject, approve with the documented JSON', async () => {
    const app = await create();
    const req = await run(
      'apps',
      'review',
      'request',
      app.applicationId,
      '--justification',
      'Age-gated shop',
      '--json',
    );
    expect(req.code).toBe(0);
    expect(req.json).toMatchObject({ status: 'pending', scopes: ['openid', 'email', 'age_over_18'] });
    const pending = await run('apps', 'review', 'list', '--status', 'pending', '--json');
    expect(pending.json.reviews.map((r: { applicationId: string }) => r.applicationId)).toContain(
      app.applicationId,
    );
    expect((await run('apps', 'review', 'list', '--status', 'maybe')).code).toBe(2);
    expect((await run('apps', 'review', 'reject', app.applicationId)).code).toBe(2);
    const rej = await run(
      'apps',
      'review',
      'reject',
      app.applicationId,
      '--reason',
      'No privacy policy',
      '--json',
    );
    expect(rej.json).toMatchObject({ status: 'rejected', decisionReason: 'No privacy policy' });
    // The decision is a security event on stderr, a JSON line like the server's (stdout stays the result).
    const rejected = JSON.parse(rej.stderr.trim());
    expect(rejected).toMatchObject({ level: 'info', msg: 'security event', event: 'review.rejected' });
    expect(rejected.applicationId).toBe(app.applicationId);
    expect((await run('apps', 'show', app.applicationId, '--json')).json.environments.length).toBe(1);

    const ok = await run('apps', 'review', 'approve', app.applicationId, '--json');
    expect(ok.code).toBe(0);
    expect(Object.keys(ok.json).sort()).toEqual(['applicationId', 'clientId', 'clientSecret', 'environment']);
    expect(ok.json).toMatchObject({ applicationId: app.applicationId, environment: 'production' });
    expect(ok.json.clientId).toMatch(/^cid_live_/);
    expect(ok.json.clientSecret).toMatch(/^cs_live_/);
    expect(JSON.parse(ok.stderr.trim())).toMatchObject({
      event: 'review.approved',
      applicationId: app.applicationId,
    });
    expect(ok.stderr).not.toContain(ok.json.clientSecret);
    const show = await run('apps', 'show', app.applicationId, '--json');
    expect(show.json.environments.map((e: { environment: string }) => e.environment)).toEqual([
      'sandbox',
      'production',
    ]);
    const rotated = await run('apps', 'secret', 'rotate', app.applicationId, '--env', 'production', '--json');
    expect(rotated.json.clientSecret).toMatch(/^cs_live_/);
    const raw = await dbBytes();
    expect(raw.includes(ok.json.clientSecret)).toBe(false);
    expect(raw.includes(rotated.json.clientSecret)).toBe(false);
    expect(raw.includes(await sha256Hex(rotated.json.clientSecret))).toBe(true);
  });

  test('document_number_full needs its own justification in the review', async () => {
    const app = await create();
    const r = await run(
      'apps',
      'review',
      'request',
      app.applicationId,
      '--justification',
      'KYC',
      '--scopes',
      'openid document_number_full',
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('justification for document_number_full');
  });

  test('delete needs --yes', async () => {
    const app = await create();
    const refused = await run('apps', 'delete', app.applicationId);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    const r = await run('apps', 'delete', app.applicationId, '--yes', '--json');
    expect(r.json).toEqual({ applicationId: app.applicationId, deleted: true });
    expect((await run('apps', 'show', app.applicationId)).code).toBe(1);
  });

  test('--help describes each command and exits 0', async () => {
    const r = await cli('apps', 'create', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--redirect-uri');
    expect(r.stdout).toContain('confidential|public');
    const group = await cli('apps', '--help');
    expect(group.stdout).toContain('apps review approve');
    expect(group.stdout).toContain('apps secret rotate');
  });

  test('operator actions are in the audit log', async () => {
    const app = await create();
    await run('apps', 'secret', 'rotate', app.applicationId, '--env', 'sandbox');
    await run('apps', 'review', 'approve', app.applicationId);
    const { openDb } = await import('../../src/db/open.ts');
    const { listAudit } = await import('../../src/audit/audit.store.ts');
    const db = await openDb(testDatabase(dir.dir));
    try {
      const rows = listAudit(db, { target: app.applicationId }).reverse();
      expect(rows.map((r) => [r.actor, r.action])).toEqual([
        ['cli', 'application.create'],
        ['cli', 'client_secret.rotate'],
        ['cli', 'review.approve'],
      ]);
    } finally {
      db.close();
    }
  });

  test("--minimum-acr sets an environment's minimum assurance level; an unknown level is refused", async () => {
    const { applicationId } = await create('--minimum-acr', 'substantial');
    const show = async () => (await run('apps', 'show', applicationId, '--json')).json;
    expect((await show()).environments[0].minimumAcr).toBe('substantial');
    // Lowering it applies at once, as raising does.
    expect((await run('apps', 'update', applicationId, '--minimum-acr', 'low')).code).toBe(0);
    expect((await show()).environments[0].minimumAcr).toBe('low');
    expect((await run('apps', 'show', applicationId)).stdout).toContain('minimum acr:    low');
    const bad = await run('apps', 'update', applicationId, '--minimum-acr', 'gold', '--json');
    expect(bad.code).toBe(1);
    expect(bad.json.error.message).toContain('the minimum acr must be one of none, low, substantial, high');
    expect((await show()).environments[0].minimumAcr).toBe('low');
    const fresh = await create();
    expect((await run('apps', 'show', fresh.applicationId, '--json')).json.environments[0].minimumAcr).toBe(
      'none',
    );
  });

  test('--id-token-alg chooses how an environment signs ID tokens; production starts with it and changes at once', async () => {
    const { applicationId } = await create('--id-token-alg', 'ES256');
    const show = async () => (await run('apps', 'show', applicationId, '--json')).json;
    expect((await show()).environments[0].idTokenSignedResponseAlg).toBe('ES256');
    expect((await run('apps', 'show', applicationId)).stdout).toContain('ID token alg:   ES256');
    const bad = await run('apps', 'update', applicationId, '--id-token-alg', 'HS256', '--json');
    expect(bad.code).toBe(1);
    expect(bad.json.error.message).toContain(
      'the ID token signing algorithm must be one of RS256, ES256, EdDSA, not "HS256"',
    );
    expect((await show()).environments[0].idTokenSignedResponseAlg).toBe('ES256');

    // Approval gives production the sandbox's choice; changing production's is no widening: no review.
    expect((await run('apps', 'review', 'approve', applicationId)).code).toBe(0);
    const approved = await show();
    expect(approved.environments[1]).toMatchObject({
      environment: 'production',
      idTokenSignedResponseAlg: 'ES256',
    });
    const r = await run(
      'apps',
      'update',
      applicationId,
      '--env',
      'production',
      '--id-token-alg',
      'EdDSA',
      '--json',
    );
    expect(r.code).toBe(0);
    const after = await show();
    expect(
      after.environments.map((e: { idTokenSignedResponseAlg: string }) => e.idTokenSignedResponseAlg),
    ).toEqual(['ES256', 'EdDSA']);
    expect(after.latestReview.status).toBe('approved');

    const fresh = await create();
    expect(
      (await run('apps', 'show', fresh.applicationId, '--json')).json.environments[0]
        .idTokenSignedResponseAlg,
    ).toBe('RS256');
  });
});
