import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getApplication, listReviews } from '../../src/apps/application.store.ts';
import { checkLink } from '../../src/apps/application-rules.ts';
import { reviewChanges } from '../../src/apps/production-change.ts';
import { approveReview } from '../../src/apps/production-review.ts';
import {
  type CreateApplicationInput,
  createApplication,
  updateApplication,
} from '../../src/apps/registration.ts';
import { checkWebOrigins, webOriginProblem } from '../../src/apps/web-origin-rules.ts';
import { ValidationError } from '../../src/errors.ts';
import { clientRegistry, findClient } from '../../src/oauth/client.store.ts';
import { cli } from '../helpers/cli.ts';
import { type TestContext, testContext, testToml } from '../helpers/context.ts';

function violation(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a rule violation');
}

describe('web origin rules', () => {
  test.each([
    ['https://app.example', 'https://app.example'],
    ['https://App.Example', 'https://app.example'],
    ['HTTPS://app.example:443', 'https://app.example'],
    ['https://app.example:8443', 'https://app.example:8443'],
    ['https://192.0.2.10', 'https://192.0.2.10'],
    ['http://localhost:5173', 'http://localhost:5173'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
    ['http://localhost:80', 'http://localhost'],
  ])('sandbox accepts %s as %s', (given, stored) => {
    expect(webOriginProblem(given, 'sandbox')).toEqual({ origin: stored });
  });

  test.each([
    ['*', 'wildcards are not allowed'],
    ['https://*.app.example', 'wildcards are not allowed'],
    ['https://app.example/', 'no path, query or fragment'],
    ['https://app.example/spa', 'no path, query or fragment'],
    ['https://app.example?x=1', 'no path, query or fragment'],
    ['https://app.example#top', 'no path, query or fragment'],
    ['https://user:pw@app.example', 'userinfo'],
    ['https://app.example:', 'the port must be a number'],
    ['https://app.example:99999', 'is not a valid origin'],
    ['https://app.example.', 'must not end with a dot'],
    ['https://127.1', 'canonical form'],
    ['https://bücher.example', 'A-label (punycode) form: xn--bcher-kva.example'],
    ['app.example', 'must be an origin of the form'],
    ['//app.example', 'must be an origin of the form'],
    ['null', 'must be an origin of the form'],
    ['ftp://app.example', 'must use https'],
    ['chrome-extension://abcdef', 'must use https'],
    ['http://app.example', 'http is allowed only for localhost'],
    ['http://localhost.app.example:3000', 'http is allowed only for localhost'],
    ['https://app example', 'spaces'],
    ['', 'must not be empty'],
  ])('refuses %s', (origin, problem) => {
    expect(webOriginProblem(origin, 'sandbox').problem).toContain(problem);
  });

  test('production refuses plain http, even on localhost', () => {
    for (const o of ['http://localhost:5173', 'http://127.0.0.1:8080'])
      expect(webOriginProblem(o, 'production').problem).toBe('must use https in production');
    expect(webOriginProblem('https://localhost:5173', 'production')).toEqual({
      origin: 'https://localhost:5173',
    });
  });

  test('a set is normalised, without duplicates, and names the broken entry', () => {
    expect(
      checkWebOrigins(['https://a.example', 'https://A.example:443', 'https://b.example'], 'sandbox'),
    ).toEqual(['https://a.example', 'https://b.example']);
    const e = violation(() => checkWebOrigins(['https://a.example', 'https://b.example/'], 'sandbox'));
    expect(e.fields[0]!.path).toBe('webOrigins[1]');
    expect(e.message).toContain('https://b.example/');
    expect(checkWebOrigins([], 'production')).toEqual([]);
    const many = Array.from({ length: 21 }, (_, i) => `https://a${i}.example`);
    expect(violation(() => checkWebOrigins(many, 'sandbox')).message).toContain('at most 20');
  });

  test('policy and terms links: https, plainly written; empty clears', () => {
    expect(checkLink('policyUri', ' https://app.example/privacy ')).toBe('https://app.example/privacy');
    expect(checkLink('tosUri', '')).toBeNull();
    for (const bad of ['http://app.example/terms', 'javascript:alert(1)', 'https://*.example/t', '/terms'])
      expect(violation(() => checkLink('tosUri', bad)).fields[0]!.path).toBe('tosUri');
    expect(violation(() => checkLink('policyUri', 'http://localhost:3000/p')).message).toContain('https');
  });
});

let ctx: TestContext;
beforeEach(async () => {
  ctx = await testContext();
});
afterEach(() => ctx.cleanup());

const base: CreateApplicationInput = {
  name: 'Single Page',
  type: 'public',
  redirectUris: ['https://spa.example/cb'],
  webOrigins: ['https://SPA.example', 'http://localhost:5173'],
  scopes: ['openid', 'profile'],
  policyUri: 'https://spa.example/privacy',
  actor: 'cli',
};

const env = (applicationId: string, name: 'sandbox' | 'production') =>
  getApplication(ctx.db, applicationId).environments.find((e) => e.environment === name)!;

describe('registering web origins and links', () => {
  test('stored normalised per environment, and seen by the client registry', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    expect(env(app.applicationId, 'sandbox').webOrigins).toEqual([
      'https://spa.example',
      'http://localhost:5173',
    ]);
    const client = findClient(ctx, app.clientId)!;
    expect(client.policyUri).toBe('https://spa.example/privacy');
    expect(client.tosUri).toBeNull();
    expect(clientRegistry(ctx).webOrigins(client.environmentId)).toEqual([
      'https://spa.example',
      'http://localhost:5173',
    ]);
    expect(clientRegistry(ctx).originRegistered('https://spa.example')).toBe(true);
    expect(clientRegistry(ctx).originRegistered('https://other.example')).toBe(false);
  });

  test('a broken origin or link refuses the whole registration', async () => {
    for (const bad of [{ webOrigins: ['https://*.spa.example'] }, { tosUri: 'http://spa.example/terms' }]) {
      await expect(createApplication(ctx.db, ctx.clock, { ...base, ...bad })).rejects.toBeInstanceOf(
        ValidationError,
      );
    }
    expect(ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM applications').get()!.n).toBe(0);
  });

  test('set, add and remove (compared normalised); the client cache follows at once', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    const envId = findClient(ctx, app.clientId)!.environmentId;
    expect(clientRegistry(ctx).webOrigins(envId)).toHaveLength(2);
    updateApplication(ctx.db, ctx.clock, app.applicationId, {
      addWebOrigins: ['https://admin.spa.example'],
      removeWebOrigins: ['HTTPS://spa.example:443'],
      actor: 'cli',
    });
    expect(clientRegistry(ctx).webOrigins(envId)).toEqual([
      'http://localhost:5173',
      'https://admin.spa.example',
    ]);
    expect(() =>
      updateApplication(ctx.db, ctx.clock, app.applicationId, {
        removeWebOrigins: ['https://never.example'],
        actor: 'cli',
      }),
    ).toThrow('is not registered');
    updateApplication(ctx.db, ctx.clock, app.applicationId, { webOrigins: [], actor: 'cli' });
    expect(clientRegistry(ctx).webOrigins(envId)).toEqual([]);
  });

  test('links change at once, in production too, without a review', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    await approveReview(ctx, app.applicationId, { actor: 'cli' });
    const updated = updateApplication(ctx.db, ctx.clock, app.applicationId, {
      environment: 'production',
      policyUri: '',
      tosUri: 'https://spa.example/terms',
      actor: 'developer:dev_1',
    });
    expect(updated.pendingReviewId).toBeUndefined();
    expect(updated).toMatchObject({ policyUri: null, tosUri: 'https://spa.example/terms' });
    expect(listReviews(ctx.db, { status: 'pending' })).toEqual([]);
  });
});

describe('production review of web origins', () => {
  test("the first approval takes the sandbox's https origins only", async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    await approveReview(ctx, app.applicationId, { actor: 'cli' });
    expect(env(app.applicationId, 'production').webOrigins).toEqual(['https://spa.example']);
  });

  test('a developer adding an origin to production waits for review; removing applies at once', async () => {
    const app = await createApplication(ctx.db, ctx.clock, base);
    await approveReview(ctx, app.applicationId, { actor: 'cli' });
    const dev = 'developer:dev_1' as const;

    const widened = updateApplication(ctx.db, ctx.clock, app.applicationId, {
      environment: 'production',
      addWebOrigins: ['https://new.spa.example'],
      justification: 'A second front end',
      actor: dev,
    });
    expect(widened.pendingReviewId).toBeString();
    expect(env(app.applicationId, 'production').webOrigins).toEqual(['https://spa.example']);
    const prodClient = findClient(ctx, env(app.applicationId, 'production').clientId)!;
    expect(clientRegistry(ctx).webOrigins(prodClient.environmentId)).not.toContain('https://new.spa.example');

    // What the operator sees before approving.
    const a = getApplication(ctx.db, app.applicationId);
    const changes = reviewChanges(
      a.latestReview!,
      env(app.applicationId, 'production'),
      env(app.applicationId, 'sandbox'),
    );
    expect(changes.webOrigins).toEqual({ added: ['https://new.spa.example'], removed: [] });
    const listed = await cliIn(ctx, 'apps', 'review', 'list', '--status', 'pending');
    expect(listed.stdout).toContain('webOrigins added:   https://new.spa.example');

    // http is refused in production outright, not sent to review.
    expect(() =>
      updateApplication(ctx.db, ctx.clock, app.applicationId, {
        environment: 'production',
        addWebOrigins: ['http://localhost:5173'],
        actor: dev,
      }),
    ).toThrow('must use https in production');

    await approveReview(ctx, app.applicationId, { actor: 'cli' });
    expect(env(app.applicationId, 'production').webOrigins).toEqual([
      'https://spa.example',
      'https://new.spa.example',
    ]);

    const narrowed = updateApplication(ctx.db, ctx.clock, app.applicationId, {
      environment: 'production',
      removeWebOrigins: ['https://spa.example'],
      actor: dev,
    });
    expect(narrowed.pendingReviewId).toBeUndefined();
    expect(env(app.applicationId, 'production').webOrigins).toEqual(['https://new.spa.example']);
    // Even the last one: a production client needs no web origin.
    updateApplication(ctx.db, ctx.clock, app.applicationId, {
      environment: 'production',
      webOrigins: [],
      actor: dev,
    });
    expect(env(app.applicationId, 'production').webOrigins).toEqual([]);
  });
});

/** The CLI against the test context's database. */
async function cliIn(c: TestContext, ...argv: string[]) {
  const config = join(c.dir, 'verity.toml');
  writeFileSync(config, testToml(c.dir));
  return cli(...argv, '--config', config);
}

describe('verity apps --web-origin', () => {
  test('create, show and update round trip', async () => {
    const created = await cliIn(
      ctx,
      ...['apps', 'create', '--name', 'SPA', '--type', 'public', '--redirect-uri', 'https://spa.example/cb'],
      ...[
        '--scopes',
        'openid',
        '--web-origin',
        'https://spa.example',
        '--web-origin',
        'http://localhost:5173',
      ],
      ...['--policy-uri', 'https://spa.example/privacy', '--json'],
    );
    expect(created.code).toBe(0);
    const id = (created.json as { applicationId: string }).applicationId;
    const shown = await cliIn(ctx, 'apps', 'show', id, '--json');
    const json = shown.json as { policyUri: string; environments: { webOrigins: string[] }[] };
    expect(json.policyUri).toBe('https://spa.example/privacy');
    expect(json.environments[0]!.webOrigins).toEqual(['https://spa.example', 'http://localhost:5173']);
    expect((await cliIn(ctx, 'apps', 'show', id)).stdout).toContain('web origins:    https://spa.example');

    const updated = await cliIn(
      ctx,
      ...['apps', 'update', id, '--add-web-origin', 'https://b.example', '--remove-web-origin'],
      ...['http://localhost:5173', '--tos-uri', 'https://spa.example/terms', '--json'],
    );
    expect(updated.code).toBe(0);
    expect(updated.json).toMatchObject({
      tosUri: 'https://spa.example/terms',
      environments: [{ webOrigins: ['https://spa.example', 'https://b.example'] }],
    });
    const cleared = await cliIn(ctx, 'apps', 'update', id, '--web-origin', 'none', '--json');
    expect(cleared.json).toMatchObject({ environments: [{ webOrigins: [] }] });

    const refused = await cliIn(ctx, 'apps', 'update', id, '--web-origin', 'https://*.spa.example');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('wildcards are not allowed');
  });
});
