import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { getApplication } from '../../src/apps/application.store.ts';
import { createApp_, P, type Portal, page, portal, signUp, submit } from './portal-helpers.ts';

setDefaultTimeout(20_000);

let p: Portal;
afterEach(() => p?.cleanup());

const minimumOf = (applicationId: string) =>
  getApplication(p.ctx.db, applicationId).environments[0]!.minimumAcr;

test('the application form sets the minimum assurance level; an unknown one is refused with the form', async () => {
  p = await portal();
  const b = await signUp(p, 'dev@example.com');
  const form = await page(b, `${P}/apps/new`);
  expect(form.html).toContain('Minimum assurance level');
  expect(form.html).toMatch(/<input[^>]*name="minimum_acr"[^>]*value="none"[^>]*checked/);

  const { applicationId } = await createApp_(b, { minimum_acr: 'substantial' });
  expect(minimumOf(applicationId)).toBe('substantial');
  const base = `${P}/apps/${applicationId}`;
  expect(await (await b.get(base)).text()).toMatch(/Minimum assurance level<\/dt>\s*<dd>Substantial/);

  const fields = {
    name: 'Acme Shop',
    redirect_uris: 'https://rp.example/callback',
    scopes: ['openid'],
    document_types: 'passport',
    document_countries: 'all',
  };
  const edit = `${base}/edit?env=sandbox`;
  expect((await page(b, edit)).html).toMatch(/<input[^>]*value="substantial"[^>]*checked/);
  const bad = await submit(b, edit, edit, { ...fields, minimum_acr: 'gold' });
  expect(bad.status).toBe(400);
  expect(await bad.text()).toContain('The minimum acr must be one of none, low, substantial, high');
  expect(minimumOf(applicationId)).toBe('substantial');

  // Lowering applies at once: it is the application's own choice of how sure it must be.
  expect((await submit(b, edit, edit, { ...fields, minimum_acr: 'low' })).status).toBe(303);
  expect(minimumOf(applicationId)).toBe('low');
});
