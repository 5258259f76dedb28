import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import {
  Browser,
  callbackParams,
  claimAccessEvents,
  decide,
  type Flow,
  flow,
  location,
  open,
  passFace,
  signInPersona,
} from './flow-helpers.ts';

setDefaultTimeout(20_000);

let f: Flow;
afterEach(() => f?.cleanup());

const completed = () => claimAccessEvents(f.ctx.db);

const status = (path: string) =>
  f.ctx.db.sql
    .prepare<{ status: string }>('SELECT status FROM authorization_requests WHERE id = ?')
    .get(path.split('/').pop()!)!.status;

/** The step page at `page` offers the Cancel form; posting it returns the response. */
async function cancelAt(path: string, page: string, b = f.browser) {
  const { html, csrf } = await open(b, page);
  expect(html).toContain(`<form method="post" action="${path}/cancel" class="cancel">`);
  expect(html).toMatch(/<button type="submit" class="link">Cancel and return to Acme Shop<\/button>/);
  return b.post(`${path}/cancel`, { csrf_token: csrf });
}

function expectCancelled(res: Response, path: string) {
  expect(res.status).toBe(303);
  const q = callbackParams(res);
  expect(q).toEqual({
    error: 'access_denied',
    error_description: 'The person cancelled the request.',
    state: 'state-123',
    iss: f.ctx.config.server.base_url,
  });
  expect(status(path)).toBe('denied');
  expect(completed()).toEqual([
    {
      applicationId: f.client.applicationId,
      environment: 'sandbox',
      decision: 'denied',
      reason: 'cancelled_by_person',
      scopes: expect.any(Array),
    },
  ]);
}

describe('Cancel and return to the application', () => {
  test('at sign-in (the persona picker)', async () => {
    f = await flow();
    const path = await f.authorize();
    expectCancelled(await cancelAt(path, path), path);
  });

  test('at sign-in (the production password form)', async () => {
    f = await flow({ environment: 'production' });
    const path = await f.authorize();
    const res = await cancelAt(path, path);
    expect(callbackParams(res).error).toBe('access_denied');
    expect(status(path)).toBe('denied');
  });

  test('at the face step', async () => {
    f = await flow();
    const path = await f.authorize();
    await signInPersona(f.browser, path);
    expectCancelled(await cancelAt(path, `${path}/face`), path);
  });

  test('at consent: no consent is recorded', async () => {
    f = await flow();
    const path = await f.authorize();
    await signInPersona(f.browser, path);
    await passFace(f.browser, path);
    expectCancelled(await cancelAt(path, `${path}/consent`), path);
    expect(f.ctx.db.sql.prepare('SELECT * FROM consents').all()).toHaveLength(0);
  });

  test('a second cancel sends no second callback and records nothing more', async () => {
    f = await flow();
    const path = await f.authorize();
    const { csrf } = await open(f.browser, path);
    const first = await f.browser.post(`${path}/cancel`, { csrf_token: csrf });
    expect(callbackParams(first).error).toBe('access_denied');
    const second = await f.browser.post(`${path}/cancel`, { csrf_token: csrf });
    expect(second.status).toBe(404);
    expect(location(second)).toBe('');
    expect(completed()).toHaveLength(1);
  });

  test('a cancel after approval leaves the request approved and its code usable', async () => {
    f = await flow();
    const path = await f.authorize();
    await signInPersona(f.browser, path);
    await passFace(f.browser, path);
    const { csrf } = await open(f.browser, `${path}/consent`);
    const approved = await decide(f.browser, path, 'allow');
    expect(callbackParams(approved).code).toBeString();
    const late = await f.browser.post(`${path}/cancel`, { csrf_token: csrf });
    expect(late.status).toBe(404);
    expect(status(path)).toBe('completed');
    expect(completed().map((d) => d.decision)).toEqual(['approved']);
    expect(
      f.ctx.db.sql.prepare('SELECT * FROM authorization_codes WHERE used_at IS NULL').all(),
    ).toHaveLength(1);
  });

  test('another browser session cannot cancel the request', async () => {
    f = await flow();
    const path = await f.authorize();
    await open(f.browser, path);
    const other = new Browser(f.app, '203.0.113.9');
    const { csrf } = await open(other, '/identity/account');
    const res = await other.post(`${path}/cancel`, { csrf_token: csrf });
    expect(res.status).toBe(403);
    expect(status(path)).toBe('pending');
    expect(completed()).toHaveLength(0);
  });
});
