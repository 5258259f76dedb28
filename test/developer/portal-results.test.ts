import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { approveReview } from '../../src/apps/production-review.ts';
import { sha256Hex } from '../../src/crypto/tokens.ts';
import { pruneResults } from '../../src/portal/results.ts';
import {
  Browser,
  createApp_,
  endpointIdOn,
  location,
  P,
  PASSWORD,
  type Portal,
  page,
  portal,
  signUp,
  submitPage,
} from './portal-helpers.ts';

// Each account costs an argon2id hash; a loaded machine needs the margin.
setDefaultTimeout(30_000);

let p: Portal;
afterEach(() => p?.cleanup());

const count = (sql: string, ...args: string[]) =>
  p.ctx.db.sql.prepare<{ n: number }>(`SELECT count(*) AS n FROM ${sql}`).get(...args)!.n;

const activeSecretHashes = (applicationId: string, environment: string) =>
  p.ctx.db.sql
    .prepare<{ secret_hash: string }>(
      `SELECT s.secret_hash FROM client_secrets s JOIN application_environments e ON e.id = s.environment_id
       WHERE e.application_id = ? AND e.environment = ? AND s.revoked_at IS NULL`,
    )
    .all(applicationId, environment)
    .map((r) => r.secret_hash);

/** The page a reload shows once the result has been seen: nothing repeated, no secret. */
async function expectAlreadyShown(res: Response, secret: string) {
  expect(res.status).toBe(410);
  const html = await res.text();
  expect(html).toContain('Already shown');
  expect(html).not.toContain(secret);
}

const hooksOf = (applicationId: string, env = 'sandbox') => `${P}/apps/${applicationId}/${env}/webhooks`;
const WEBHOOKS = '[webhooks]\nallow_localhost_in_sandbox = true';
const APP = {
  name: 'Acme Shop',
  type: 'confidential',
  redirect_uris: 'https://rp.example/cb',
  scopes: 'openid',
};

describe('a reload of a result page repeats nothing', () => {
  test('"Application created": one application, its secret shown once', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const created = await submitPage(b, `${P}/apps/new`, `${P}/apps`, APP);
    expect(created.html).toContain('Application created');
    const secret = /(cs_test_[\w-]+)/.exec(created.html)![1]!;
    const reloads = [await created.reload(), await created.reload()];
    expect(count('applications')).toBe(1);
    for (const r of reloads) await expectAlreadyShown(r, secret);
    expect(created.posted.status).toBe(303);
    expect(created.res.status).toBe(200);
    const applicationId = /\/apps\/(app_[\w-]+)/.exec(created.html)![1]!;
    expect(activeSecretHashes(applicationId, 'sandbox')).toEqual([await sha256Hex(secret)]);

    const publicApp = await submitPage(b, `${P}/apps/new`, `${P}/apps`, { ...APP, type: 'public' });
    expect(publicApp.html).toContain('Public client: no secret.');
    expect((await publicApp.reload()).status).toBe(410);
    expect(count('applications')).toBe(2);
  });

  test('"New client secret": no second rotation, in sandbox and in production', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const { applicationId } = await createApp_(b);
    await approveReview(p.ctx, applicationId, { actor: 'cli' });
    for (const [env, prefix] of [
      ['sandbox', 'cs_test_'],
      ['production', 'cs_live_'],
    ] as const) {
      const rotate = `${P}/apps/${applicationId}/secret/rotate?env=${env}`;
      const rotated = await submitPage(b, rotate, rotate, {});
      expect(rotated.html).toContain('New client secret');
      const secret = new RegExp(`(${prefix}[\\w-]+)`).exec(rotated.html)![1]!;
      const reload = await rotated.reload();
      // The secret that was shown is still the one that works.
      expect(activeSecretHashes(applicationId, env)).toEqual([await sha256Hex(secret)]);
      await expectAlreadyShown(reload, secret);
      expect(rotated.posted.status).toBe(303);
    }
  });

  test('"Production client secret": revealed once, a reload shows it no more', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const { applicationId } = await createApp_(b);
    const issued = await approveReview(p.ctx, applicationId, { actor: 'cli' });
    const app = `${P}/apps/${applicationId}`;
    const revealed = await submitPage(b, `${app}?env=production`, `${app}/production-secret`, {});
    expect(revealed.posted.status).toBe(303);
    expect(revealed.html).toContain(issued.clientSecret!);
    await expectAlreadyShown(await revealed.reload(), issued.clientSecret!);
    expect(activeSecretHashes(applicationId, 'production')).toEqual([await sha256Hex(issued.clientSecret!)]);
  });

  test('"New API key": one key, shown once', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const created = await submitPage(b, `${P}/keys`, `${P}/keys`, { label: 'CI', environment: 'sandbox' });
    expect(created.posted.status).toBe(303);
    const key = /(dk_test_[\w-]+)/.exec(created.html)![1]!;
    await expectAlreadyShown(await created.reload(), key);
    expect(count('developer_api_keys')).toBe(1);
    const list = await (await b.get(`${P}/keys`)).text();
    expect(list).toContain('CI');
    expect(list).not.toContain(key);
  });

  test('"Endpoint added" and "New signing secret": one endpoint, one rotation', async () => {
    p = await portal({ extra: WEBHOOKS });
    const b = await signUp(p, 'dev@example.com');
    const { applicationId } = await createApp_(b);
    const hb = hooksOf(applicationId);
    const added = await submitPage(b, `${hb}/new`, hb, {
      url: 'http://localhost:9/hook',
      events: 'webhook.test',
    });
    expect(added.posted.status).toBe(303);
    expect(added.html).toContain('Endpoint added');
    const secret = /(whsec_[\w-]+)/.exec(added.html)![1]!;
    await expectAlreadyShown(await added.reload(), secret);
    expect(count('webhook_endpoints')).toBe(1);

    const endpointId = endpointIdOn(await (await b.get(hb)).text())!;
    const rotate = `${hb}/${endpointId}/rotate`;
    const rotated = await submitPage(b, rotate, rotate, { overlap: '3600' });
    expect(rotated.posted.status).toBe(303);
    expect(rotated.html).toContain('New signing secret');
    expect(rotated.html).toContain('The previous secret stays valid until');
    const next = /(whsec_[\w-]+)/.exec(rotated.html)![1]!;
    expect(next).not.toBe(secret);
    await expectAlreadyShown(await rotated.reload(), next);
    expect(count('webhook_secrets')).toBe(2);
  });

  test('a failed form re-renders with 400; its reload changes nothing either', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const bad = await submitPage(b, `${P}/apps/new`, `${P}/apps`, {
      ...APP,
      redirect_uris: 'http://rp.example/cb',
    });
    expect(bad.res.status).toBe(400);
    expect((await bad.reload()).status).toBe(400);
    expect(count('applications')).toBe(0);
  });
});

describe('the one-time result', () => {
  test('never travels in a URL, and waits sealed in the server-side session', async () => {
    p = await portal({ extra: WEBHOOKS });
    const b = await signUp(p, 'dev@example.com');
    const { applicationId } = await createApp_(b);
    const posts: [string, string, Record<string, string>][] = [
      [`${P}/apps/new`, `${P}/apps`, APP],
      [`${P}/keys`, `${P}/keys`, { environment: 'sandbox' }],
      [
        `${hooksOf(applicationId)}/new`,
        hooksOf(applicationId),
        { url: 'http://localhost:9/hook', events: 'webhook.test' },
      ],
      [
        `${P}/apps/${applicationId}/secret/rotate?env=sandbox`,
        `${P}/apps/${applicationId}/secret/rotate?env=sandbox`,
        {},
      ],
    ];
    for (const [form, action, fields] of posts) {
      const { csrf } = await page(b, form);
      const posted = await b.post(action, { csrf_token: csrf, ...fields });
      expect(posted.status).toBe(303);
      const to = location(posted);
      const stored = p.ctx.db.sql.prepare<{ sealed: string }>('SELECT sealed FROM portal_results').all();
      expect(stored).toHaveLength(1);
      const shown = await (await b.get(to)).text();
      // The random part of the secret, which must appear nowhere but on the page.
      const random = /(?:cs_test_|dk_test_|whsec_)([\w-]+)/.exec(shown)![1]!;
      expect(to).not.toContain(random);
      expect(posted.headers.get('set-cookie') ?? '').not.toContain(random);
      expect(stored[0]!.sealed).not.toContain(random);
      expect(count('portal_results')).toBe(0);
    }
  });

  test('belongs to the session that made it: another browser of the same developer gets none', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const other = new Browser(p.app);
    const { csrf } = await page(other, `${P}/signin`);
    expect(
      (await other.post(`${P}/signin`, { csrf_token: csrf, email: 'dev@example.com', password: PASSWORD }))
        .status,
    ).toBe(303);

    const { csrf: formCsrf } = await page(b, `${P}/keys`);
    const posted = await b.post(`${P}/keys`, { csrf_token: formCsrf, environment: 'sandbox' });
    await expectAlreadyShown(await other.get(location(posted)), 'dk_');
    expect(await (await b.get(location(posted))).text()).toMatch(/dk_test_/);
  });

  test('two loads at once: exactly one shows the secret', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const { csrf } = await page(b, `${P}/keys`);
    const posted = await b.post(`${P}/keys`, { csrf_token: csrf, environment: 'sandbox' });
    const answers = await Promise.all([1, 2, 3].map(() => b.get(location(posted))));
    const bodies = await Promise.all(answers.map((r) => r.text()));
    expect(bodies.filter((t) => /dk_test_/.test(t))).toHaveLength(1);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 410, 410]);
  });

  test('expires unseen after 10 minutes and is pruned; signing out drops it', async () => {
    p = await portal();
    const b = await signUp(p, 'dev@example.com');
    const post = async () => {
      const { csrf } = await page(b, `${P}/keys`);
      return location(await b.post(`${P}/keys`, { csrf_token: csrf, environment: 'sandbox' }));
    };
    const first = await post();
    p.ctx.clock.advance(10 * 60_000);
    await expectAlreadyShown(await b.get(first), 'dk_');
    expect(pruneResults(p.ctx)).toBe(1);

    const second = await post();
    expect(count('portal_results')).toBe(1);
    const { csrf } = await page(b, `${P}/keys`);
    await b.post(`${P}/signout`, { csrf_token: csrf });
    expect(count('portal_results')).toBe(0);
    expect(location(await b.get(second))).toBe(`${P}/signin`);
  });

  test('another developer cannot open the result page of an application that is not theirs', async () => {
    p = await portal();
    const alice = await signUp(p, 'alice@example.com');
    const { csrf } = await page(alice, `${P}/apps/new`);
    const posted = await alice.post(`${P}/apps`, { csrf_token: csrf, ...APP });
    const bob = await signUp(p, 'bob@example.com');
    expect((await bob.get(location(posted))).status).toBe(404);
    expect(await (await alice.get(location(posted))).text()).toMatch(/cs_test_/);
  });
});
