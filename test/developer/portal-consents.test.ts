import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { listAudit } from '../../src/audit/audit.store.ts';
import { subscribeTestEndpoint } from '../helpers/apps.ts';
import { CALLBACK, connectPersona } from '../identity/flow-helpers.ts';
import { Browser, createApp_, location, P, type Portal, page, portal, signUp } from './portal-helpers.ts';

/**
 * A developer sees the sandbox consents the personas gave their own applications, from every browser,
 * and revokes them; another developer's are out of reach.
 */

// Each account costs an argon2id hash (19 MiB, by design slow); a loaded machine needs the margin.
setDefaultTimeout(30_000);

let p: Portal;
afterEach(() => p?.cleanup());

async function world() {
  p = await portal();
  const alice = await signUp(p, 'alice@example.com');
  const bob = await signUp(p, 'bob@example.com');
  const aliceApp = await createApp_(alice, { name: 'Alice Shop' });
  const bobApp = await createApp_(bob, { name: 'Bob Bank' });
  for (const a of [aliceApp, bobApp]) subscribeTestEndpoint(p.ctx, a.applicationId);
  const clientOf = (html: string) => /(cid_test_[\w-]+)/.exec(html)![1]!;
  /** A persona's consent given in a browser of its own; returns the consent id. */
  const consent = async (clientId: string, persona: string, purpose: string) => {
    const { res } = await connectPersona(new Browser(p.app, '198.51.100.9'), clientId, {
      persona,
      purpose,
      scope: 'openid profile',
    });
    expect(location(res)).toStartWith(CALLBACK);
    return p.ctx.db.sql
      .prepare<{ id: string }>("SELECT id FROM consents WHERE purpose = ? AND status = 'active'")
      .get(purpose)!.id;
  };
  const adaAtAlice = await consent(clientOf(aliceApp.html), 'ada', 'Check your age at checkout');
  const benAtAlice = await consent(clientOf(aliceApp.html), 'ben', 'Send your receipt');
  const adaAtBob = await consent(clientOf(bobApp.html), 'ada', 'Open your bank account');
  return {
    alice,
    bob,
    aliceApp: aliceApp.applicationId,
    bobApp: bobApp.applicationId,
    adaAtAlice,
    benAtAlice,
    adaAtBob,
  };
}

const statusOf = (id: string) =>
  p.ctx.db.sql.prepare<{ status: string }>('SELECT status FROM consents WHERE id = ?').get(id)!.status;
const revocations = () =>
  p.ctx.db.sql
    .prepare<{ body: string }>("SELECT body FROM webhook_events WHERE type = 'consent.revoked'")
    .all()
    .map((r) => JSON.parse(r.body).data as { consentId: string; reason: string });

test("the application's page lists every persona's sandbox consent, and only this application's", async () => {
  const w = await world();
  const app = await page(w.alice, `${P}/apps/${w.aliceApp}`);
  expect(app.html).toContain(`href="${P}/apps/${w.aliceApp}/sandbox/consents"`);

  const { res, html } = await page(w.alice, `${P}/apps/${w.aliceApp}/sandbox/consents`);
  expect(res.status).toBe(200);
  for (const text of ['Ada Sandbox', 'Ben Sandbox', 'Check your age at checkout', 'Send your receipt'])
    expect(html).toContain(text);
  expect(html).toContain('<code>profile</code>');
  expect(html).toContain('2026-06-01 12:00 UTC');
  expect(html).toContain('aria-label="Revoke Ada Sandbox: Check your age at checkout"');
  expect(html).not.toContain('Open your bank account');
});

test('Revoke ends the consent with reason revoked_by_developer, audited, and it leaves the list', async () => {
  const w = await world();
  const list = `${P}/apps/${w.aliceApp}/sandbox/consents`;
  const { csrf } = await page(w.alice, list);
  const res = await w.alice.post(`${list}/${w.adaAtAlice}/revoke`, { csrf_token: csrf });
  expect(res.status).toBe(303);
  expect(location(res)).toBe(`${list}?revoked=1`);
  expect(statusOf(w.adaAtAlice)).toBe('revoked');
  expect(statusOf(w.benAtAlice)).toBe('active');
  expect(revocations()).toEqual([
    expect.objectContaining({ consentId: w.adaAtAlice, reason: 'revoked_by_developer' }),
  ]);
  const audit = listAudit(p.ctx.db, { action: 'consent.revoke' });
  expect(audit.map((a) => [a.actor.startsWith('developer:'), a.target])).toEqual([[true, w.adaAtAlice]]);

  const after = await page(w.alice, `${list}?revoked=1`);
  expect(after.html).toContain('The consent was revoked.');
  expect(after.html).not.toContain('Check your age at checkout');
  expect(after.html).toContain('Send your receipt');
});

test("another developer's consents: not listed, not revocable through either application, unchanged", async () => {
  const w = await world();
  const theirs = `${P}/apps/${w.aliceApp}/sandbox/consents`;
  expect((await w.bob.get(theirs)).status).toBe(404);
  const { csrf } = await page(w.bob, `${P}/apps/${w.bobApp}/sandbox/consents`);
  // Through Alice's application, and through Bob's own with Alice's consent id.
  for (const path of [
    `${theirs}/${w.adaAtAlice}/revoke`,
    `${P}/apps/${w.bobApp}/sandbox/consents/${w.adaAtAlice}/revoke`,
  ])
    expect((await w.bob.post(path, { csrf_token: csrf })).status).toBe(404);
  // Without the CSRF token even the owner changes nothing.
  expect((await w.alice.post(`${theirs}/${w.adaAtAlice}/revoke`, {})).status).toBe(403);
  expect(statusOf(w.adaAtAlice)).toBe('active');
  expect(revocations()).toEqual([]);

  // Bob's own consent is his to end.
  const own = await w.bob.post(`${P}/apps/${w.bobApp}/sandbox/consents/${w.adaAtBob}/revoke`, {
    csrf_token: csrf,
  });
  expect(own.status).toBe(303);
  expect(statusOf(w.adaAtBob)).toBe('revoked');
});
