import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { fixedClock } from '../../src/platform/clock.ts';
import {
  AuthorizationError,
  CallbackError,
  createVerityClient,
  memoryTransactionStore,
  type TransactionStore,
  type VerityClient,
} from '../../src/sdk/index.ts';
import { type FakeKey, type FakeVerity, newKey, startFakeVerity, tokenAnswer } from './fake-verity.ts';

const CLIENT = 'cid_test_client';
const REDIRECT = 'http://localhost:8081/callback';
const clock = fixedClock(Date.UTC(2026, 5, 1, 12));

let key: FakeKey;
let fake: FakeVerity;
let store: TransactionStore;
let client: VerityClient;

beforeAll(async () => {
  key = await newKey('k1');
});

beforeEach(async () => {
  clock.set(Date.UTC(2026, 5, 1, 12));
  fake = await startFakeVerity();
  fake.published = [key];
  store = memoryTransactionStore();
  client = createVerityClient({
    issuer: fake.url,
    clientId: CLIENT,
    clientSecret: 'cs_test_secret',
    redirectUri: REDIRECT,
    store,
    clock,
  });
});
afterEach(() => fake.stop());

/** Starts a sign-in and answers the token endpoint like Verity, with the nonce the authorize URL carried. */
async function start(sessionId = 'session-a') {
  const started = await client.startSignIn({
    sessionId,
    scope: 'openid email',
    purpose: 'Sign in',
    display: 'popup',
  });
  const url = new URL(started.authorizationUrl);
  const state = url.searchParams.get('state')!;
  const nonce = url.searchParams.get('nonce')!;
  fake.token = async () =>
    tokenAnswer({ key, iss: fake.url, aud: CLIENT, nonce, now: clock.now(), scope: 'openid email' });
  return {
    ...started,
    url,
    state,
    callback: `${REDIRECT}?code=code-1&state=${encodeURIComponent(state)}&iss=${encodeURIComponent(fake.url)}`,
  };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(CallbackError);
    return (e as CallbackError).code;
  }
  throw new Error('the callback was accepted');
}

describe('startSignIn', () => {
  test('returns only the transaction id and an authorize URL with state, nonce, S256 PKCE, purpose and display', async () => {
    const s = await start();
    expect(Object.keys(s).filter((k) => ['transactionId', 'authorizationUrl'].includes(k)).length).toBe(2);
    const q = s.url.searchParams;
    expect(s.url.pathname).toBe('/v1/oauth/authorize');
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe(CLIENT);
    expect(q.get('redirect_uri')).toBe(REDIRECT);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('purpose')).toBe('Sign in');
    expect(q.get('display')).toBe('popup');
    // 32 random bytes, base64url: 43 characters.
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(q.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const [tx] = await store.findBySession('session-a');
    expect(tx!.codeVerifier.length).toBeGreaterThanOrEqual(43);
    expect(tx!.consumed).toBe(false);
    expect(new Date(tx!.createdAt).toISOString()).toBe(tx!.createdAt);
    expect(s.authorizationUrl).not.toContain(tx!.codeVerifier);
  });
});

describe('handleCallback', () => {
  test('a valid callback exchanges the code with the verifier and returns the validated ID-token claims', async () => {
    const s = await start();
    const out = await client.handleCallback(s.callback, 'session-a');
    expect(out.transaction.id).toBe(s.transactionId);
    expect(out.result.claims?.sub).toBe('pairwise-sub-1');
    expect(out.result.tokens.access_token).toBe('at_x');
    const body = JSON.parse(fake.requests.find((r) => r.path === '/v1/oauth/token')!.body);
    expect(body.code_verifier.length).toBeGreaterThanOrEqual(43);
    expect(body.redirect_uri).toBe(REDIRECT);
  });

  test('refuses a callback from another browser session or with no session (missing)', async () => {
    const s = await start('session-a');
    expect(await refusal(client.handleCallback(s.callback, 'session-b'))).toBe('transaction_missing');
    expect(await refusal(client.handleCallback(s.callback, undefined))).toBe('transaction_missing');
    expect(fake.count('/v1/oauth/token')).toBe(0);
  });

  test('refuses a missing or mismatched state and leaves the real sign-in usable', async () => {
    const s = await start();
    expect(await refusal(client.handleCallback(`${REDIRECT}?code=c`, 'session-a'))).toBe('state_missing');
    const forged = `${REDIRECT}?code=c&state=${'A'.repeat(43)}`;
    expect(await refusal(client.handleCallback(forged, 'session-a'))).toBe('state_mismatch');
    const twice = `${REDIRECT}?code=c&state=${s.state}&state=${s.state}`;
    expect(await refusal(client.handleCallback(twice, 'session-a'))).toBe('state_mismatch');
    expect(fake.count('/v1/oauth/token')).toBe(0);
    expect((await client.handleCallback(s.callback, 'session-a')).result.claims).toBeDefined();
  });

  test('refuses an expired transaction and discards it', async () => {
    const s = await start();
    clock.advance(600_001);
    expect(await refusal(client.handleCallback(s.callback, 'session-a'))).toBe('transaction_expired');
    expect(await store.findBySession('session-a')).toEqual([]);
    expect(fake.count('/v1/oauth/token')).toBe(0);
  });

  test('a replayed callback is refused and the code is not exchanged twice', async () => {
    const s = await start();
    await client.handleCallback(s.callback, 'session-a');
    expect(await refusal(client.handleCallback(s.callback, 'session-a'))).toBe('transaction_missing');
    expect(fake.count('/v1/oauth/token')).toBe(1);
  });

  test('marks the transaction consumed before the exchange: a concurrent callback is refused as consumed', async () => {
    const s = await start();
    let seenConsumed: boolean | undefined;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const answer = fake.token;
    fake.token = async (req) => {
      seenConsumed = (await store.findBySession('session-a'))[0]?.consumed;
      await gate;
      return answer(req);
    };
    const first = client.handleCallback(s.callback, 'session-a');
    while (fake.count('/v1/oauth/token') === 0) await Bun.sleep(1);
    expect(await refusal(client.handleCallback(s.callback, 'session-a'))).toBe('transaction_consumed');
    release();
    expect((await first).result.claims?.sub).toBe('pairwise-sub-1');
    expect(seenConsumed).toBe(true);
    expect(fake.count('/v1/oauth/token')).toBe(1);
  });

  test('surfaces error and error_description, and the transaction is gone after that one attempt', async () => {
    const s = await start();
    const denied = `${REDIRECT}?error=access_denied&error_description=${encodeURIComponent('The person declined')}&state=${s.state}`;
    const err = await client.handleCallback(denied, 'session-a').catch((e) => e);
    expect(err).toBeInstanceOf(AuthorizationError);
    expect(err.code).toBe('access_denied');
    expect(err.description).toBe('The person declined');
    expect(err.transactionId).toBe(s.transactionId);
    expect(await store.findBySession('session-a')).toEqual([]);
    expect(fake.count('/v1/oauth/token')).toBe(0);
  });

  test('a failed exchange still discards the transaction', async () => {
    const s = await start();
    fake.token = () =>
      Response.json({ error: 'invalid_grant', error_description: 'code expired' }, { status: 400 });
    const err = await client.handleCallback(s.callback, 'session-a').catch((e) => e);
    expect(err.code).toBe('invalid_grant');
    expect(await store.findBySession('session-a')).toEqual([]);
  });

  test('refuses a callback whose iss names another issuer', async () => {
    const s = await start();
    const other = s.callback.replace(/iss=[^&]*/, 'iss=https%3A%2F%2Fevil.example');
    expect(await refusal(client.handleCallback(other, 'session-a'))).toBe('issuer_mismatch');
    expect(fake.count('/v1/oauth/token')).toBe(0);
  });

  test('iss is required once the issuer advertises it (RFC 9207), optional before', async () => {
    const s = await start();
    const without = s.callback.replace(/&iss=[^&]*/, '');
    fake.discovery = { authorization_response_iss_parameter_supported: true };
    const advertising = createVerityClient({
      issuer: fake.url,
      clientId: CLIENT,
      clientSecret: 'cs_test_secret',
      redirectUri: REDIRECT,
      store,
      clock,
    });
    expect(await refusal(advertising.handleCallback(without, 'session-a'))).toBe('issuer_missing');
    expect(fake.count('/v1/oauth/token')).toBe(0);

    const again = await start();
    expect(
      (await client.handleCallback(again.callback.replace(/&iss=[^&]*/, ''), 'session-a')).result.claims,
    ).toBeDefined();
  });

  test('at_hash must be there, and be that of the access token', async () => {
    const answer = (nonce: string, atHash: string) => async () =>
      tokenAnswer({ key, iss: fake.url, aud: CLIENT, nonce, now: clock.now(), extra: { at_hash: atHash } });
    // Left-most 128 bits of SHA-256("at_x"), base64url.
    const right = createHash('sha256').update('at_x').digest().subarray(0, 16).toString('base64url');
    let s = await start();
    fake.token = answer(s.url.searchParams.get('nonce')!, right);
    expect((await client.handleCallback(s.callback, 'session-a')).result.claims?.at_hash).toBe(right);

    s = await start();
    const wrong = createHash('sha256').update('at_y').digest().subarray(0, 16).toString('base64url');
    fake.token = answer(s.url.searchParams.get('nonce')!, wrong);
    const err = await client.handleCallback(s.callback, 'session-a').catch((e) => e);
    expect(err.code).toBe('id_token_at_hash');

    // Verity always sends it: without one the ID token is bound to no access token.
    s = await start();
    fake.token = answer(s.url.searchParams.get('nonce')!, undefined as unknown as string);
    expect((await client.handleCallback(s.callback, 'session-a').catch((e) => e)).code).toBe(
      'id_token_at_hash',
    );
  });

  test('maxAge is sent as max_age, kept with the transaction, and an older sign-in is refused', async () => {
    const started = await client.startSignIn({ sessionId: 'session-a', scope: 'openid', maxAge: 60 });
    const url = new URL(started.authorizationUrl);
    expect(url.searchParams.get('max_age')).toBe('60');
    expect((await store.findBySession('session-a'))[0]!.maxAge).toBe(60);
    const nonce = url.searchParams.get('nonce')!;
    fake.token = async () =>
      tokenAnswer({ key, iss: fake.url, aud: CLIENT, nonce, now: clock.now(), authTimeOffset: -3600 });
    const callback = `${REDIRECT}?code=code-1&state=${encodeURIComponent(url.searchParams.get('state')!)}&iss=${encodeURIComponent(fake.url)}`;
    expect((await client.handleCallback(callback, 'session-a').catch((e) => e)).code).toBe(
      'id_token_auth_time',
    );
  });

  test('an ID token for another nonce fails the sign-in', async () => {
    const s = await start();
    fake.token = async () =>
      tokenAnswer({ key, iss: fake.url, aud: CLIENT, nonce: 'x'.repeat(43), now: clock.now() });
    const err = await client.handleCallback(s.callback, 'session-a').catch((e) => e);
    expect(err.code).toBe('id_token_nonce');
  });
});
