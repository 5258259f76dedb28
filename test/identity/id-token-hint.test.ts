import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import {
  Browser,
  CALLBACK,
  callbackParams,
  connectPersona,
  exchangeCode,
  type Flow,
  flow,
  location,
  open,
  passFace,
  signInPersona,
} from './flow-helpers.ts';

/**
 * `id_token_hint` at authorize (OIDC Core §3.1.2.1): only the person the hint names may answer the
 * request. Someone else signed in is not taken for them: `prompt=none` answers `login_required`, and
 * an interactive request asks for a sign-in, which ends with `login_required` if it is not that person.
 */

setDefaultTimeout(30_000);
let f: Flow;
afterEach(() => f?.cleanup());

const SCOPES = 'openid email';
const REUSE = '[face]\nreuse_within = "10m"';

/** Signs `persona` in through the flow in browser `b` and returns the ID token `client` gets. */
async function idTokenOf(b: Browser, persona: string, client: TestApp = f.client) {
  const { res, verifier } = await connectPersona(b, client.clientId, {
    purpose: 'Sign in',
    persona,
    scope: SCOPES,
  });
  return (await exchangeCode(f.app, client, callbackParams(res).code!, verifier)).id_token;
}

describe('id_token_hint at authorize', () => {
  test('prompt=none answers only for the person the hint names', async () => {
    f = await flow({ scopes: SCOPES, extra: REUSE });
    const ben = await idTokenOf(new Browser(f.app, '198.51.100.9'), 'ben');
    const ada = await idTokenOf(f.browser, 'ada');

    const other = await f.browser.get(
      await f.authorize({ prompt: 'none', id_token_hint: ben, purpose: 'Sign in' }),
    );
    expect(callbackParams(other).error).toBe('login_required');
    expect(callbackParams(other).code).toBeUndefined();

    const same = await f.browser.get(
      await f.authorize({ prompt: 'none', id_token_hint: ada, purpose: 'Sign in' }),
    );
    expect(callbackParams(same).code).toBeDefined();
  });

  test('interactively, someone else signed in is asked to sign in; the wrong person ends it', async () => {
    f = await flow({ scopes: SCOPES, extra: REUSE });
    const ben = await idTokenOf(new Browser(f.app, '198.51.100.9'), 'ben');
    await idTokenOf(f.browser, 'ada');

    // Ada's session is not reused: the persona picker is shown.
    const path = await f.authorize({ id_token_hint: ben, purpose: 'Sign in' });
    const page = await open(f.browser, path);
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('Choose a test persona');
    const wrong = await signInPersona(f.browser, path, 'ada');
    expect(callbackParams(wrong)).toMatchObject({
      error: 'login_required',
      error_description: 'The person who signed in is not the one id_token_hint names.',
    });

    // Ben, whom the hint names, goes on (to consent: his earlier one is another browser's).
    const again = await f.authorize({ id_token_hint: ben, purpose: 'Sign in' });
    await signInPersona(f.browser, again, 'ben');
    expect(location(await passFace(f.browser, again))).toBe(`${again}/consent`);
  });

  test("a hint that is not an ID token issued to this client is refused at the client's callback", async () => {
    f = await flow({ scopes: SCOPES });
    const other = await createTestApp(f.ctx, {
      type: 'confidential',
      redirectUris: [CALLBACK],
      scopes: SCOPES,
    });
    const foreign = await idTokenOf(f.browser, 'ada', other);
    for (const hint of ['not-a-jwt', foreign, `${foreign.slice(0, -4)}AAAA`]) {
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: f.client.clientId,
        redirect_uri: CALLBACK,
        scope: SCOPES,
        state: 'state-123',
        nonce: 'nonce-123',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
        id_token_hint: hint,
      });
      const res = await f.browser.get(`/v1/oauth/authorize?${q}`);
      expect(res.status).toBe(303);
      expect(callbackParams(res)).toMatchObject({
        error: 'invalid_request',
        error_description: 'id_token_hint is not an ID token this server issued to this client.',
        state: 'state-123',
      });
    }
  });
});
