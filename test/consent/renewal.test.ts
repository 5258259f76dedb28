import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import {
  callbackParams,
  decide,
  type Flow,
  flow,
  location,
  open,
  passFace,
  signInPersona,
} from '../identity/flow-helpers.ts';

setDefaultTimeout(20_000);

let f: Flow;
afterEach(() => f?.cleanup());

const DAY = 86_400;

const consents = () =>
  f.ctx.db.sql
    .prepare<{ id: string; status: string; granted_at: number; expires_at: number }>(
      'SELECT id, status, granted_at, expires_at FROM consents ORDER BY granted_at, id',
    )
    .all();

const granted = () =>
  f.ctx.db.sql
    .prepare<{ body: string }>(`SELECT body FROM webhook_events WHERE type = 'consent.granted' ORDER BY id`)
    .all()
    .map((r) => JSON.parse(r.body).data);

const now = () => Math.floor(f.ctx.clock.now().getTime() / 1000);

/** A request of the signed-in browser taken through the face step to the consent screen. */
async function atConsent(params: Record<string, string> = {}) {
  const path = await f.authorize(params);
  const entry = await f.browser.get(path);
  if (entry.status === 200) await signInPersona(f.browser, path);
  expect(location(await passFace(f.browser, path))).toBe(`${path}/consent`);
  return path;
}

const consentBlocks = async () =>
  ((await open(f.browser, '/identity/account')).html.match(/<div class="consent">/g) ?? []).length;

describe('prompt=consent on an existing consent', () => {
  test('renews it: same id, new grant time and expiry, consent.granted again; one block on the account page', async () => {
    f = await flow();
    expect(callbackParams(await decide(f.browser, await atConsent(), 'allow')).code).toBeString();
    const [first] = consents();

    // Within the session's idle time: a persona's consents belong to the session that gave them.
    f.ctx.clock.advance(10 * 60_000);
    const again = await atConsent({ prompt: 'consent' });
    expect(callbackParams(await decide(f.browser, again, 'allow')).code).toBeString();

    // A persona's consent lasts as long as the session holding it may (a person's, [consent] max_age).
    const deadline = f.ctx.db.sql
      .prepare<{ expires_at: number }>("SELECT expires_at FROM sessions WHERE kind = 'identity'")
      .get()!.expires_at;
    expect(deadline).toBeLessThan(now() + DAY);
    expect(consents()).toEqual([
      { id: first!.id, status: 'active', granted_at: now(), expires_at: deadline },
    ]);
    const events = granted();
    expect(events.map((e) => e.consentId)).toEqual([first!.id, first!.id]);
    expect(events[1].at).toBe(f.ctx.clock.now().toISOString());
    expect(await consentBlocks()).toBe(1);
  });

  test('two tabs allowing the same consent at once store one consent', async () => {
    f = await flow();
    const a = await atConsent();
    const b = await atConsent();
    const [ca, cb] = await Promise.all([open(f.browser, `${a}/consent`), open(f.browser, `${b}/consent`)]);
    const [ra, rb] = await Promise.all([
      f.browser.post(`${a}/consent`, { csrf_token: ca.csrf, decision: 'allow' }),
      f.browser.post(`${b}/consent`, { csrf_token: cb.csrf, decision: 'allow' }),
    ]);
    expect(callbackParams(ra).code).toBeString();
    expect(callbackParams(rb).code).toBeString();
    expect(consents()).toHaveLength(1);
    const codes = f.ctx.db.sql
      .prepare<{ consent_id: string }>('SELECT consent_id FROM authorization_codes')
      .all();
    expect(codes.map((c) => c.consent_id)).toEqual([consents()[0]!.id, consents()[0]!.id]);
    expect(await consentBlocks()).toBe(1);
  });

  test('another purpose is another consent; a revoked or expired one is not brought back', async () => {
    f = await flow();
    // A second between grants, so their grant times tell the consents apart.
    await decide(f.browser, await atConsent(), 'allow');
    f.ctx.clock.advance(1000);
    await decide(f.browser, await atConsent({ purpose: 'Something else', prompt: 'consent' }), 'allow');
    expect(consents()).toHaveLength(2);

    const [first] = consents();
    f.ctx.db.sql.prepare(`UPDATE consents SET status = 'revoked' WHERE id = ?`).run(first!.id);
    f.ctx.clock.advance(1000);
    await decide(f.browser, await atConsent({ prompt: 'consent' }), 'allow');
    const third = consents()[2]!;
    f.ctx.clock.advance(1000);
    // Past its expiry, before the expiry job has marked it.
    f.ctx.db.sql.prepare('UPDATE consents SET expires_at = ? WHERE id = ?').run(now(), third.id);
    await decide(f.browser, await atConsent({ prompt: 'consent' }), 'allow');
    const ids = consents().map((c) => c.id);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    expect(consents()[0]).toMatchObject({ id: first!.id, status: 'revoked' });
    expect(consents()[2]).toMatchObject({ id: third.id, expires_at: now() });
  });
});
