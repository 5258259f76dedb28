import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { createSpaClient, type SpaClient } from '../../src/sdk/browser/spa.ts';
import { s256 } from '../../src/sdk/random.ts';
import { type FakeKey, type FakeVerity, newKey, startFakeVerity, tokenAnswer } from './fake-verity.ts';

/**
 * The single-page app's flow against the loopback stand-in for Verity: the transaction rules as they
 * hold in the tab's storage. The same flow runs cross-origin in Chromium in test/e2e/spa.test.ts.
 */

const CLIENT = 'cid_test_spa';
const APP = 'http://127.0.0.1:5173';
const REDIRECT = `${APP}/callback`;
const clock = fixedClock(Date.UTC(2026, 5, 1, 12));

/** The Web Storage interface over a Map, as one tab's sessionStorage. */
class TabStorage implements Storage {
  #items = new Map<string, string>();
  get length() {
    return this.#items.size;
  }
  key = (i: number) => [...this.#items.keys()][i] ?? null;
  getItem = (k: string) => this.#items.get(k) ?? null;
  setItem = (k: string, v: string) => void this.#items.set(k, String(v));
  removeItem = (k: string) => void this.#items.delete(k);
  clear = () => this.#items.clear();
}

/** The page's address bar and history, which the client navigates and cleans. */
function tabWindow() {
  const location = {
    href: `${APP}/`,
    assign(url: string) {
      location.href = url;
    },
  };
  const history = {
    state: null,
    replaceState(_: unknown, __: string, url: string) {
      location.href = url;
    },
  };
  return { location, history };
}

let key: FakeKey;
let fake: FakeVerity;
let storage: TabStorage;
let tab: ReturnType<typeof tabWindow>;
let spa: SpaClient;

beforeAll(async () => {
  key = await newKey('k1');
});

beforeEach(async () => {
  clock.set(Date.UTC(2026, 5, 1, 12));
  fake = await startFakeVerity();
  fake.published = [key];
  storage = new TabStorage();
  tab = tabWindow();
  spa = spaFor(storage);
});
afterEach(() => fake.stop());

const spaFor = (s: Storage) =>
  createSpaClient({
    issuer: fake.url,
    clientId: CLIENT,
    redirectUri: REDIRECT,
    storage: s,
    clock,
    window: tab as unknown as Window,
  });

const stored = () =>
  Array.from({ length: storage.length }, (_, i) => JSON.parse(storage.getItem(storage.key(i)!)!));

/** Signs in up to the callback: the tab is at Verity, and Verity answers the token request like itself. */
async function start(nonceInToken?: string) {
  await spa.startSignIn({ scope: 'openid email', purpose: 'Sign in', returnTo: '/account' });
  const authorize = new URL(tab.location.href);
  const state = authorize.searchParams.get('state')!;
  const nonce = nonceInToken ?? authorize.searchParams.get('nonce')!;
  fake.token = async () =>
    tokenAnswer(
      { key, iss: fake.url, aud: CLIENT, nonce, now: clock.now(), scope: 'openid email' },
      'at_spa',
    );
  const callback = `${REDIRECT}?code=code-1&state=${encodeURIComponent(state)}&iss=${encodeURIComponent(fake.url)}`;
  return { authorize, state, callback };
}

/** The browser comes back to the callback URL. */
const arriveAt = (url: string) => {
  tab.location.href = url;
};

async function refusalCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as { code: string }).code;
  }
  throw new Error('the callback was accepted');
}

describe('startSignIn', () => {
  test('keeps the interface transaction in the tab and sends only the S256 challenge to Verity', async () => {
    const { authorize } = await start();
    const q = authorize.searchParams;
    expect(authorize.origin + authorize.pathname).toBe(`${fake.url}/v1/oauth/authorize`);
    expect(q.get('client_id')).toBe(CLIENT);
    expect(q.get('redirect_uri')).toBe(REDIRECT);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.has('display')).toBe(false);

    const [tx, ...others] = stored();
    expect(others).toEqual([]);
    expect(tx.state).toBe(q.get('state'));
    expect(tx.nonce).toBe(q.get('nonce'));
    // 32 random bytes, base64url.
    expect(tx.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tx.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tx.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(q.get('code_challenge')).toBe(await s256(tx.codeVerifier));
    expect(authorize.href).not.toContain(tx.codeVerifier);
    expect(tx.redirectUri).toBe(REDIRECT);
    expect(tx.createdAt).toBe(clock.now().toISOString());
    expect(tx.consumed).toBe(false);
  });
});

describe('handleCallback', () => {
  test('exchanges the code as a public client, validates the ID token and cleans the address bar', async () => {
    const { callback } = await start();
    arriveAt(callback);
    expect(spa.isCallback()).toBe(true);
    const out = await spa.handleCallback();
    expect(out.claims?.sub).toBe('pairwise-sub-1');
    expect(out.tokens.access_token).toBe('at_spa');
    expect(out.returnTo).toBe('/account');

    const tokenRequest = fake.requests.find((r) => r.path === '/v1/oauth/token')!;
    expect(tokenRequest.headers.get('authorization')).toBeNull();
    expect(tokenRequest.headers.get('content-type')).toBe('application/json');
    const body = JSON.parse(tokenRequest.body);
    expect(body).toEqual({
      grant_type: 'authorization_code',
      code: 'code-1',
      redirect_uri: REDIRECT,
      client_id: CLIENT,
      code_verifier: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(tab.location.href).toBe(REDIRECT);
    expect(spa.isCallback()).toBe(false);
    expect(stored()).toEqual([]);
  });

  test('a replayed callback is refused without another exchange', async () => {
    const { callback } = await start();
    await spa.handleCallback(callback);
    expect(await refusalCode(spa.handleCallback(callback))).toBe('transaction_missing');
    expect(fake.count('/v1/oauth/token')).toBe(1);
  });

  test('a forged state is refused and cannot cancel the real sign-in', async () => {
    const { callback, state } = await start();
    const forged = callback.replace(state, (state[0] === 'A' ? 'B' : 'A') + state.slice(1));
    expect(await refusalCode(spa.handleCallback(forged))).toBe('state_mismatch');
    expect(await refusalCode(spa.handleCallback(callback.replace(/&state=[^&]*/, '')))).toBe('state_missing');
    expect(fake.count('/v1/oauth/token')).toBe(0);
    expect((await spa.handleCallback(callback)).claims?.sub).toBe('pairwise-sub-1');
  });

  test('another tab, an expired or an already consumed transaction is refused before any exchange', async () => {
    const { callback } = await start();
    expect(await refusalCode(spaFor(new TabStorage()).handleCallback(callback))).toBe('transaction_missing');

    const key = storage.key(0)!;
    const tx = JSON.parse(storage.getItem(key)!);
    storage.setItem(key, JSON.stringify({ ...tx, consumed: true }));
    expect(await refusalCode(spa.handleCallback(callback))).toBe('transaction_consumed');

    storage.setItem(key, JSON.stringify(tx));
    clock.advance(601_000);
    expect(await refusalCode(spa.handleCallback(callback))).toBe('transaction_expired');
    expect(stored()).toEqual([]);
    expect(fake.count('/v1/oauth/token')).toBe(0);
  });

  test('an unreadable stored transaction is dropped, never matched', async () => {
    const { callback } = await start();
    const key = storage.key(0)!;
    const tx = JSON.parse(storage.getItem(key)!);
    storage.setItem(key, JSON.stringify({ ...tx, consumed: 'no' }));
    expect(await refusalCode(spa.handleCallback(callback))).toBe('transaction_missing');
    storage.setItem(key, '{not json');
    expect(await refusalCode(spa.handleCallback(callback))).toBe('transaction_missing');
    expect(storage.length).toBe(0);
  });

  test('an ID token for another nonce is refused and the transaction is gone', async () => {
    const { callback } = await start('m'.repeat(43));
    expect(await refusalCode(spa.handleCallback(callback))).toBe('id_token_nonce');
    expect(stored()).toEqual([]);
    expect(await refusalCode(spa.handleCallback(callback))).toBe('transaction_missing');
  });
});

test('userinfo reads the approved claims with the access token', async () => {
  fake.userinfo = (r) => Response.json({ sub: 'pairwise-sub-1', auth: r.headers.get('authorization') });
  expect(await spa.userinfo('at_spa')).toEqual({ sub: 'pairwise-sub-1', auth: 'Bearer at_spa' });
});
