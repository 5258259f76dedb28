import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { getApplication } from '../../src/apps/application.store.ts';
import { approveReview } from '../../src/apps/production-review.ts';
import { createApp_, location, P, type Portal, page, portal, signUp, submit } from './portal-helpers.ts';

// Each account costs an argon2id hash; a loaded machine needs the margin.
setDefaultTimeout(30_000);

let p: Portal;
afterEach(() => p?.cleanup());

const FIELDS = {
  redirect_uris: 'https://spa.example/cb',
  web_origins: 'https://SPA.example\nhttp://localhost:5173',
  policy_uri: 'https://spa.example/privacy',
  tos_uri: 'https://spa.example/terms',
};

const envOf = (applicationId: string, name: 'sandbox' | 'production') =>
  getApplication(p.ctx.db, applicationId).environments.find((e) => e.environment === name)!;

describe('web origins and links in the portal', () => {
  test('created with the application, shown on its page and in its edit form', async () => {
    p = await portal();
    const b = await signUp(p, 'spa@example.com');
    const { applicationId, html } = await createApp_(b, { ...FIELDS, type: 'public' });
    expect(applicationId).not.toBe('');
    expect(html).not.toContain('web_origins-error');
    const app = getApplication(p.ctx.db, applicationId);
    expect(app).toMatchObject({ policyUri: FIELDS.policy_uri, tosUri: FIELDS.tos_uri });
    expect(envOf(applicationId, 'sandbox').webOrigins).toEqual([
      'https://spa.example',
      'http://localhost:5173',
    ]);

    const detail = (await page(b, `${P}/apps/${applicationId}`)).html;
    expect(detail).toContain('<code>https://spa.example</code>');
    expect(detail).toContain('<code>https://spa.example/privacy</code>');
    const form = (await page(b, `${P}/apps/${applicationId}/edit?env=sandbox`)).html;
    expect(form).toContain('https://spa.example\nhttp://localhost:5173</textarea>');
    expect(form).toContain('value="https://spa.example/terms"');
  });

  test('a wildcard origin or an http link is shown at its field and nothing is created', async () => {
    p = await portal();
    const b = await signUp(p, 'spa@example.com');
    for (const bad of [{ web_origins: 'https://*.spa.example' }, { tos_uri: 'http://spa.example/terms' }]) {
      const { res, html, applicationId } = await createApp_(b, { ...FIELDS, ...bad });
      expect(res.status).toBe(400);
      expect(applicationId).toBe('');
      const field = Object.keys(bad)[0]!;
      expect(html).toContain(`id="${field}-error"`);
      expect(html.toLowerCase()).toContain(
        field === 'web_origins' ? 'wildcards are not allowed' : 'must use https',
      );
    }
    expect(p.ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM applications').get()!.n).toBe(0);
  });

  test('adding a production origin waits for review; the page shows what it asks for', async () => {
    p = await portal();
    const b = await signUp(p, 'spa@example.com');
    const { applicationId } = await createApp_(b, { ...FIELDS, scopes: ['openid', 'profile'] });
    await approveReview(p.ctx, applicationId, { actor: 'cli' });
    expect(envOf(applicationId, 'production').webOrigins).toEqual(['https://spa.example']);

    const edit = `${P}/apps/${applicationId}/edit?env=production`;
    const res = await submit(b, edit, edit, {
      name: 'Acme Shop',
      ...FIELDS,
      web_origins: 'https://spa.example\nhttps://admin.spa.example',
      scopes: ['openid', 'profile'],
      document_types: ['passport', 'id_card'],
      document_countries: 'all',
    });
    expect(res.status).toBe(303);
    expect(location(res)).toContain('pending=1');
    expect(envOf(applicationId, 'production').webOrigins).toEqual(['https://spa.example']);
    const detail = (await page(b, `${P}/apps/${applicationId}?env=production`)).html;
    expect(detail).toContain('Web origins asked for');
    expect(detail).toContain('+https://admin.spa.example');
  });
});
