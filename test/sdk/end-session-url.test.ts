import { afterEach, expect, test } from 'bun:test';
import { createApp } from '../../src/app.ts';
import { endSessionUrl } from '../../src/sdk/index.ts';
import type { DiscoveryDocument } from '../../src/sdk/types.ts';
import { type TestContext, testContext } from '../helpers/context.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

test('endSessionUrl puts every given parameter in the query, encoded, and nothing else', () => {
  const url = new URL(
    endSessionUrl({
      endSessionEndpoint: 'https://id.example/identity/logout',
      idTokenHint: 'a.b.c',
      postLogoutRedirectUri: 'https://app.example/bye?x=1&y=2',
      state: 's &=',
      uiLocales: 'de en',
    }),
  );
  expect(`${url.origin}${url.pathname}`).toBe('https://id.example/identity/logout');
  expect(Object.fromEntries(url.searchParams)).toEqual({
    id_token_hint: 'a.b.c',
    post_logout_redirect_uri: 'https://app.example/bye?x=1&y=2',
    state: 's &=',
    ui_locales: 'de en',
  });
  const bare = endSessionUrl({
    endSessionEndpoint: 'https://id.example/identity/logout',
    clientId: 'cid_test_x',
  });
  expect(bare).toBe('https://id.example/identity/logout?client_id=cid_test_x');
});

test("the URL built from discovery's end_session_endpoint reaches Verity's logout", async () => {
  ctx = await testContext();
  const app = createApp(ctx);
  const doc = (await (await app.request('/.well-known/openid-configuration')).json()) as DiscoveryDocument;
  const url = new URL(endSessionUrl({ endSessionEndpoint: doc.end_session_endpoint!, state: 'abc' }));
  const res = await app.request(`${url.pathname}${url.search}`);
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('You are signed out of Verity.');
});
