import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { getApplication } from '../../src/apps/application.store.ts';
import { createApp_, P, type Portal, page, portal, signUp, submit } from '../developer/portal-helpers.ts';

setDefaultTimeout(20_000);

let p: Portal;
afterEach(() => p?.cleanup());

const algOf = (applicationId: string) =>
  getApplication(p.ctx.db, applicationId).environments[0]!.idTokenSignedResponseAlg;

test('the application form chooses the ID token signing algorithm; an unknown one is refused with the form', async () => {
  p = await portal();
  const b = await signUp(p, 'dev@example.com');
  const form = await page(b, `${P}/apps/new`);
  expect(form.html).toContain('ID token signing algorithm');
  expect(form.html).toMatch(/<option[^>]*value="RS256"[^>]*selected/);

  const { applicationId } = await createApp_(b, { id_token_alg: 'EdDSA' });
  expect(algOf(applicationId)).toBe('EdDSA');
  const base = `${P}/apps/${applicationId}`;
  expect(await (await b.get(base)).text()).toMatch(
    /ID token signing algorithm<\/dt>\s*<dd>EdDSA \(Ed25519\)/,
  );

  const fields = {
    name: 'Acme Shop',
    redirect_uris: 'https://rp.example/callback',
    scopes: ['openid'],
    document_types: 'passport',
    document_countries: 'all',
  };
  const edit = `${base}/edit?env=sandbox`;
  expect((await page(b, edit)).html).toMatch(/<option[^>]*value="EdDSA"[^>]*selected/);
  const bad = await submit(b, edit, edit, { ...fields, id_token_alg: 'none' });
  expect(bad.status).toBe(400);
  expect(await bad.text()).toContain('The ID token signing algorithm must be one of RS256, ES256, EdDSA');
  expect(algOf(applicationId)).toBe('EdDSA');

  expect((await submit(b, edit, edit, { ...fields, id_token_alg: 'ES256' })).status).toBe(303);
  expect(algOf(applicationId)).toBe('ES256');
});
