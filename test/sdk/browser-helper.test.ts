import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  setDefaultTimeout,
  test,
} from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BROWSER_HELPER_JS } from '../../src/sdk/browser/bundle.gen.ts';
import { launchChromium } from '../helpers/chromium.ts';

/**
 * A tiny application page using the bundled helper, its transaction endpoint, and a stand-in
 * authorization page reachable both at the application's origin (localhost) and at another origin
 * (127.0.0.1), so the test can post completion messages from the popup at either.
 */
interface FakeApp {
  origin: string;
  otherOrigin: string;
  transactions: { id: string; display: string }[];
  /** Where the transaction endpoint sends the popup: 'same' or 'other' origin. */
  authorizeAt: 'same' | 'other';
  stop(): void;
}

function startFakeApp(): FakeApp {
  const app: FakeApp = {
    origin: '',
    otherOrigin: '',
    transactions: [],
    authorizeAt: 'same',
    stop: () => server.stop(true),
  };
  const page = `<!doctype html><html><body>
<button id="signin">Sign in</button>
<script type="module">
  import { signIn } from '/helper.js';
  const record = (r) => { document.body.dataset.result = JSON.stringify(r); };
  const go = () => signIn({ transactionEndpoint: '/tx', closedPollMs: 100 }).then(record, (e) => record({ error: e.message }));
  document.getElementById('signin').addEventListener('click', go);
  if (location.search.includes('auto')) setTimeout(go, 0);
  window.ready = true;
</script></body></html>`;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === '/') return new Response(page, { headers: { 'content-type': 'text/html' } });
      if (url.pathname === '/helper.js')
        return new Response(BROWSER_HELPER_JS, { headers: { 'content-type': 'text/javascript' } });
      if (url.pathname === '/tx' && req.method === 'POST') {
        const { display } = (await req.json()) as { display: string };
        const id = `tx-${app.transactions.length + 1}`;
        app.transactions.push({ id, display });
        const at = app.authorizeAt === 'same' ? app.origin : app.otherOrigin;
        return Response.json({
          transactionId: id,
          authorizationUrl: `${at}/authorize?tx=${id}&display=${display}`,
        });
      }
      if (url.pathname === '/authorize')
        return new Response('<!doctype html><title>authorize</title><p>hosted experience</p>', {
          headers: { 'content-type': 'text/html' },
        });
      return new Response('not found', { status: 404 });
    },
  });
  app.origin = `http://localhost:${server.port}`;
  app.otherOrigin = `http://127.0.0.1:${server.port}`;
  return app;
}

setDefaultTimeout(30_000);

let browser: Browser;
let app: FakeApp;
let context: BrowserContext;
beforeAll(async () => {
  browser = await launchChromium({ popupBlocker: true });
});
afterAll(async () => {
  await browser.close();
});
beforeEach(async () => {
  app = startFakeApp();
  context = await browser.newContext();
});
afterEach(async () => {
  await context.close();
  app.stop();
});

async function openApp(query = ''): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${app.origin}/${query}`);
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true, undefined, {
    polling: 50,
  });
  return page;
}

// Polled on a timer: requestAnimationFrame (the default) does not run in an opener behind its popup.
const settled = (page: Page) =>
  page.waitForFunction(() => document.body.dataset.result !== undefined, undefined, { polling: 50 });
const result = (page: Page) => page.evaluate(() => document.body.dataset.result);

/** Clicks Sign in and returns the popup once it has reached the stand-in authorization page. */
async function clickAndGetPopup(page: Page): Promise<Page> {
  const popupPromise = page.waitForEvent('popup');
  await page.click('#signin');
  const popup = await popupPromise;
  await popup.waitForURL(/\/authorize\?/);
  return popup;
}

/** Posts a message from `from` to its opener (or to itself when it has none). */
function post(from: Page, data: unknown, targetOrigin: string) {
  return from.evaluate(([d, t]) => ((window.opener as Window | null) ?? window).postMessage(d, t as string), [
    data,
    targetOrigin,
  ] as const);
}

describe('browser helper (headless Chromium)', () => {
  test('opens the popup inside the click, navigates it with display=popup, accepts the completion message', async () => {
    const page = await openApp();
    const popup = await clickAndGetPopup(page);
    expect(app.transactions).toEqual([{ id: 'tx-1', display: 'popup' }]);
    expect(new URL(popup.url()).searchParams.get('display')).toBe('popup');
    expect(await result(page)).toBeUndefined();

    await post(popup, { type: 'service:oauth:complete', transactionId: 'tx-1' }, app.origin);
    await settled(page);
    expect(JSON.parse((await result(page))!)).toEqual({ status: 'complete', transactionId: 'tx-1' });
    // The helper closes the popup once it accepts the message.
    await page.waitForFunction(() => true, undefined, { polling: 50 });
    for (let i = 0; i < 100 && !popup.isClosed(); i++) await Bun.sleep(20);
    expect(popup.isClosed()).toBe(true);
  });

  test('ignores forged completion messages: wrong type, wrong transactionId, not from the popup', async () => {
    const page = await openApp();
    const popup = await clickAndGetPopup(page);
    await post(popup, { type: 'service:oauth:other', transactionId: 'tx-1' }, app.origin);
    await post(popup, { type: 'service:oauth:complete', transactionId: 'tx-999' }, app.origin);
    await post(popup, { type: 'service:oauth:complete' }, app.origin);
    await post(popup, 'service:oauth:complete tx-1', app.origin);
    // The opener itself (same origin, right content) is not the popup.
    await post(page, { type: 'service:oauth:complete', transactionId: 'tx-1' }, app.origin);
    // Nor is a same-origin iframe of the opener.
    await page.evaluate(() => {
      const f = document.createElement('iframe');
      document.body.append(f);
      (f.contentWindow as unknown as { eval(s: string): void }).eval(
        `parent.postMessage({ type: 'service:oauth:complete', transactionId: 'tx-1' }, '*')`,
      );
    });
    await page.waitForTimeout(300);
    expect(await result(page)).toBeUndefined();
    expect(popup.isClosed()).toBe(false);

    await post(popup, { type: 'service:oauth:complete', transactionId: 'tx-1' }, app.origin);
    await settled(page);
    expect(JSON.parse((await result(page))!)).toEqual({ status: 'complete', transactionId: 'tx-1' });
  });

  test('ignores a completion message from the popup while it is on another origin', async () => {
    app.authorizeAt = 'other';
    const page = await openApp();
    const popup = await clickAndGetPopup(page);
    expect(new URL(popup.url()).origin).toBe(app.otherOrigin);
    await post(popup, { type: 'service:oauth:complete', transactionId: 'tx-1' }, '*');
    await page.waitForTimeout(300);
    expect(await result(page)).toBeUndefined();

    // The same popup back on the application's origin (as on its callback page) is accepted.
    // Navigated by the page itself, as a redirect would: a browser-initiated navigation cuts the opener.
    await popup.evaluate((to) => {
      location.href = to;
    }, `${app.origin}/authorize?back=1`);
    await popup.waitForURL(/back=1/);
    await post(popup, { type: 'service:oauth:complete', transactionId: 'tx-1' }, app.origin);
    await settled(page);
    expect(JSON.parse((await result(page))!).status).toBe('complete');
  });

  test('reports a popup the person closed', async () => {
    const page = await openApp();
    const popup = await clickAndGetPopup(page);
    await popup.close();
    await settled(page);
    expect(JSON.parse((await result(page))!)).toEqual({ status: 'closed' });
  });

  test('a blocked popup falls back to a full-page redirect with display=page', async () => {
    // Started without a user gesture: Chromium's popup blocker refuses window.open.
    const page = await context.newPage();
    let popups = 0;
    page.on('popup', () => popups++);
    await page.goto(`${app.origin}/?auto`);
    await page.waitForURL(/\/authorize\?/);
    expect(new URL(page.url()).searchParams.get('display')).toBe('page');
    expect(app.transactions).toEqual([{ id: 'tx-1', display: 'page' }]);
    expect(popups).toBe(0);
  });

  test('on mobile it always redirects the page, even from a click', async () => {
    const mobile = await browser.newContext({
      userAgent:
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
    });
    try {
      const page = await mobile.newPage();
      let popups = 0;
      page.on('popup', () => popups++);
      await page.goto(`${app.origin}/`);
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true, undefined, {
        polling: 50,
      });
      await page.click('#signin');
      await page.waitForURL(/\/authorize\?/);
      expect(new URL(page.url()).searchParams.get('display')).toBe('page');
      expect(popups).toBe(0);
    } finally {
      await mobile.close();
    }
  });
});
