import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { Browser, type Flow, flow } from '../identity/flow-helpers.ts';

setDefaultTimeout(30_000);

let f: Flow;
afterEach(() => f?.cleanup());

const LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
const limitHeaders = (res: Response) => LIMIT_HEADERS.map((h) => res.headers.get(h));

// docs/reference.md, "Rate limits": every response of a limited surface carries the three headers,
// refusals included; the routes without a limit carry none.
test('pages and the portal send the rate-limit headers on every response, the 429 page included', async () => {
  f = await flow({ extra: '[rate_limits.web]\nrequests = 2\nwindow = "1m"' });
  const b = new Browser(f.app, '203.0.113.40');
  const first = await b.get('/identity/account');
  expect(first.status).toBe(200);
  expect(limitHeaders(first)).toEqual(['2', '1', '60']);
  const portal = await b.get('/developer/signin');
  expect(portal.status).toBe(200);
  expect(limitHeaders(portal)).toEqual(['2', '0', '60']);
  for (const path of ['/identity/account', '/developer/signin']) {
    const refused = await b.get(path);
    expect(refused.status).toBe(429);
    expect(limitHeaders(refused)).toEqual(['2', '0', '60']);
  }
});

test('discovery, the JWKS, health, readiness and unknown paths have no limit and send no headers for one', async () => {
  f = await flow({ extra: '[rate_limits.web]\nrequests = 1\nwindow = "1m"' });
  const paths = [
    '/.well-known/openid-configuration',
    '/.well-known/jwks.json',
    '/healthz',
    '/readyz',
    '/nowhere',
  ];
  for (const path of paths) {
    // Past any limit of one: a limit would show, and refuse the second request.
    for (let i = 0; i < 2; i++) {
      const res = await f.app.request(path, {}, { ip: '203.0.113.41' });
      expect(res.status).not.toBe(429);
      expect(limitHeaders(res)).toEqual([null, null, null]);
    }
  }
});
