import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { pageRoutes } from '../../src/app.ts';
import {
  apiKeyIdOn,
  createApp_,
  endpointIdOn,
  P,
  type Portal,
  page,
  signUp,
  submit,
  submitPage,
} from '../developer/portal-helpers.ts';
import {
  Browser,
  CALLBACK,
  type Flow,
  flow,
  open,
  passFace,
  signInPersona,
} from '../identity/flow-helpers.ts';

// One developer account costs an argon2id hash.
setDefaultTimeout(30_000);

let f: Flow;
afterEach(() => f?.cleanup());

/** What every HTML page must carry so it cannot be framed, sniffed or cached. */
function expectPageHeaders(path: string, res: Response) {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect({ path, frameAncestors: /frame-ancestors 'none'/.test(csp) }).toEqual({
    path,
    frameAncestors: true,
  });
  expect({ path, xfo: res.headers.get('x-frame-options') }).toEqual({ path, xfo: 'DENY' });
  expect({ path, nosniff: res.headers.get('x-content-type-options') }).toEqual({ path, nosniff: 'nosniff' });
  expect({ path, cache: res.headers.get('cache-control') }).toEqual({ path, cache: 'no-store' });
  expect({ path, referrer: res.headers.get('referrer-policy') }).toEqual({ path, referrer: 'no-referrer' });
  expect({ path, script: /script-src 'nonce-/.test(csp) }).toEqual({ path, script: true });
}

test('every HTML page of the identity experience and the portal refuses framing, signed in or not, errors included', async () => {
  f = await flow({ extra: '[developer]\nsignup = "open"\n[webhooks]\nallow_localhost_in_sandbox = true' });
  const p: Portal = { ctx: f.ctx, app: f.app, cleanup: () => {} };

  // A world with real ids, so the pages render rather than 404.
  const dev = await signUp(p, 'alice@example.com');
  const { applicationId } = await createApp_(dev);
  const hb = `${P}/apps/${applicationId}/sandbox/webhooks`;
  await submit(dev, `${hb}/new`, hb, { url: 'http://localhost:9/hook', events: 'webhook.test' });
  const endpointId = endpointIdOn(await (await dev.get(hb)).text()) ?? '';
  const keyPage = await submitPage(dev, `${P}/keys`, `${P}/keys`, { label: 'ci', environment: 'sandbox' });
  const keyId = apiKeyIdOn(keyPage.html) ?? '';
  expect(endpointId).not.toBe('');
  expect(keyId).not.toBe('');
  const requestPath = await f.authorize();
  const requestId = requestPath.split('/').pop()!;
  await signInPersona(f.browser, requestPath);
  await passFace(f.browser, requestPath);
  const values: Record<string, string> = {
    id: applicationId,
    eid: endpointId,
    keyId,
    token: 'inv_unknown',
  };
  const concrete = (pattern: string, id: string) =>
    pattern
      .replace(/:env\{[^}]+\}/g, 'sandbox')
      .replace(/:(\w+)/g, (_, name: string) =>
        pattern.startsWith('/identity/') ? id : (values[name] ?? 'x'),
      );

  const gets = [
    ...new Set(
      (await pageRoutes(f.ctx))
        .filter((r) => r.method === 'GET' && (r.path.startsWith('/identity') || r.path.startsWith(P)))
        .map((r) => r.path.replace(/\/\*$/, '/unknown')),
    ),
  ];
  expect(gets.length).toBeGreaterThanOrEqual(20);
  let pages = 0;
  let ok = 0;
  const anonymous = new Browser(f.app);
  for (const route of gets) {
    for (const [b, id] of [
      [route.startsWith('/identity') ? f.browser : dev, requestId],
      [anonymous, requestId],
      [dev, 'req_unknown'],
    ] as const) {
      const path = concrete(route, id);
      const res = await b.get(path);
      if (!(res.headers.get('content-type') ?? '').startsWith('text/html')) continue;
      pages++;
      if (res.status === 200) ok++;
      expectPageHeaders(path, res);
    }
  }
  // Most pages rendered for real, and the error pages were checked too.
  expect(ok).toBeGreaterThanOrEqual(20);
  expect(pages).toBeGreaterThan(ok);

  // Error pages reached by posting: a refused CSRF token on each surface.
  const refused = [
    await f.browser.post(`${requestPath}/consent`, { csrf_token: 'wrong', decision: 'allow' }),
    await dev.request(`${P}/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: dev.origin },
      body: 'csrf_token=wrong',
    }),
  ];
  for (const res of refused) {
    expect(res.status).toBe(403);
    expectPageHeaders('refused post', res);
  }
  // The page shown for an authorize request with an unknown client cannot be framed either.
  const bad = await f.app.request(
    `/v1/oauth/authorize?response_type=code&client_id=cid_test_nope&redirect_uri=${encodeURIComponent(CALLBACK)}`,
  );
  expect(bad.headers.get('content-type')).toStartWith('text/html');
  expect(bad.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  // The consent page still works after all that.
  expect((await open(f.browser, `${requestPath}/consent`)).res.status).toBe(200);
  expect((await page(dev, `${P}/apps`)).res.status).toBe(200);
});
