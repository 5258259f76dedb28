import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createApiKey } from '../../src/developer/api-key.store.ts';
import { findDeveloperByEmail } from '../../src/developer/developer.store.ts';
import { heldBody } from '../helpers/stream-body.ts';
import { decide, location, passFace, pathOf, pkcePair, signInPersona } from '../identity/flow-helpers.ts';
import { Browser, createApp_, P, type Portal, page, portal, signUp, submit } from './portal-helpers.ts';

// Argon2id hashing and per-test databases are slow on a busy machine.
setDefaultTimeout(30_000);

/**
 * Someone signs up with another person's address before its owner does; the owner takes the account
 * back with a reset link. Nothing the squatter set up, or had under way, may keep working for them.
 */
describe('taking back an account made in the owner’s name', () => {
  let p: Portal;
  let mail: string[];
  afterEach(() => p?.cleanup());

  async function squatted(fields: Record<string, string> = {}) {
    mail = [];
    p = await portal();
    p.ctx.email = { send: async (m) => void mail.push(m.text) };
    const squatter = await signUp(p, 'owner@example.com', { verified: false });
    const app = await createApp_(squatter, fields);
    return { squatter, ...app, clientId: /cid_test_[\w-]+/.exec(app.html)![0] };
  }

  async function takeBack() {
    await submit(new Browser(p.app), `${P}/forgot-password`, `${P}/forgot-password`, {
      email: 'owner@example.com',
    });
    await Bun.sleep(0);
    const reset = new URL(/https?:\/\/\S+/.exec(mail.at(-1)!)![0].replace(/"$/, '')).pathname;
    const r = await submit(new Browser(p.app), reset, reset, {
      password: 'a brand new passphrase',
      confirm: 'a brand new passphrase',
    });
    expect(r.status).toBe(303);
    expect(findDeveloperByEmail(p.ctx.db, 'owner@example.com')!.emailVerified).toBe(true);
  }

  const redirectUris = (applicationId: string) =>
    p.ctx.db.sql
      .prepare<{ uri: string }>(
        `SELECT r.uri FROM redirect_uris r JOIN application_environments e ON e.id = r.environment_id
         WHERE e.application_id = ?`,
      )
      .all(applicationId)
      .map((r) => r.uri);

  test('a form the squatter is still sending when the owner takes the account back changes nothing', async () => {
    const { squatter, applicationId } = await squatted();
    const edit = `${P}/apps/${applicationId}/edit`;
    const { csrf } = await page(squatter, edit);
    const form = heldBody(
      new URLSearchParams({
        csrf_token: csrf,
        name: 'Acme Shop',
        redirect_uris: 'https://squatter.example/cb',
        scopes: 'openid',
        document_countries: 'all',
      }).toString(),
    );
    // The rest of the body once the owner has taken the account back: the session was read when the
    // request began.
    const inFlight = squatter.request(edit, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: squatter.origin,
        'content-length': form.length,
      },
      ...form.init,
    });
    await Bun.sleep(50);
    await takeBack();
    expect(redirectUris(applicationId)).toEqual([]);
    form.release();
    const res = await inFlight;
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('This form has expired');
    expect(redirectUris(applicationId)).toEqual([]);
  });

  test('a developer API request the squatter is still sending adds no webhook endpoint back', async () => {
    const { applicationId } = await squatted();
    const developerId = findDeveloperByEmail(p.ctx.db, 'owner@example.com')!.developerId;
    const { key } = await createApiKey(p.ctx.db, p.ctx.clock, developerId, 'sandbox');
    const create = heldBody(
      JSON.stringify({ url: 'https://93.184.215.14/squatter', events: ['consent.granted'] }),
    );
    const inFlight = p.app.request(`/v1/developer/applications/${applicationId}/webhooks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': create.length,
      },
      ...create.init,
    });
    await Bun.sleep(50);
    await takeBack();
    create.release();
    const res = await inFlight;
    expect(res.status).toBe(401);
    expect(await res.text()).not.toContain('whsec_');
    const endpoints = p.ctx.db.sql
      .prepare<{ n: number }>('SELECT count(*) AS n FROM webhook_endpoints WHERE application_id = ?')
      .get(applicationId)!.n;
    expect(endpoints).toBe(0);
  });

  test('requests, consents and tokens made under the squatter’s addresses end with them', async () => {
    const { clientId } = await squatted({ type: 'public' });
    // Each in a browser of its own, so that every request goes through every step.
    const authorize = async (person = new Browser(p.app)) => {
      const { verifier, challenge } = pkcePair();
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: 'https://rp.example/callback',
        scope: 'openid profile',
        state: 'state-123',
        nonce: 'nonce-123',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const res = await person.get(`/v1/oauth/authorize?${q}`);
      return { person, path: pathOf(location(res)), res, verifier };
    };
    const exchange = (code: string, verifier: string) =>
      p.app.request('/v1/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'https://rp.example/callback',
          client_id: clientId,
          code_verifier: verifier,
        }),
      });
    const finish = async ({ person, path }: { person: Browser; path: string }) => {
      let res = await signInPersona(person, path);
      if (location(res).endsWith('/face')) res = await passFace(person, path);
      if (location(res).endsWith('/consent')) res = await decide(person, path, 'allow');
      return res;
    };
    // Before: a token in use, a code not yet exchanged, and a request half way.
    const done = await authorize();
    const first = new URL(location(await finish(done)));
    const token = (await (await exchange(first.searchParams.get('code')!, done.verifier)).json()) as {
      access_token: string;
    };
    const userinfo = () =>
      p.app.request('/v1/userinfo', { headers: { authorization: `Bearer ${token.access_token}` } });
    expect((await userinfo()).status).toBe(200);
    const pending = await authorize();
    const second = new URL(location(await finish(pending)));
    const open = await authorize();
    expect((await open.person.get(open.path)).status).toBe(200);

    await takeBack();
    expect((await authorize()).res.status).toBe(400);
    expect((await userinfo()).status).toBe(401);
    // Each consent ended as a revocation does: revoked by the developer, and audited one by one.
    const count = (sql: string) => p.ctx.db.sql.prepare<{ n: number }>(sql).get()!.n;
    const revoked = count("SELECT count(*) AS n FROM consents WHERE end_reason = 'revoked_by_developer'");
    expect(revoked).toBe(2);
    expect(count("SELECT count(*) AS n FROM consents WHERE status = 'active'")).toBe(0);
    expect(count("SELECT count(*) AS n FROM audit_log WHERE action = 'consent.revoke'")).toBe(revoked);
    const late = await exchange(second.searchParams.get('code')!, pending.verifier);
    expect(late.status).toBe(400);
    expect(((await late.json()) as { error: string }).error).toBe('invalid_grant');
    // The request opened before has ended: it can send the person nowhere.
    const again = await open.person.get(open.path);
    expect(again.status).toBe(404);
    expect(await again.text()).toContain('is unknown, has expired or is already finished');
  });

  test('the privacy policy and terms links on the consent page are cleared too', async () => {
    const { applicationId } = await squatted({
      policy_uri: 'https://squatter.example/privacy',
      tos_uri: 'https://squatter.example/terms',
    });
    const links = () =>
      p.ctx.db.sql
        .prepare<{ policy_uri: string | null; tos_uri: string | null }>(
          'SELECT policy_uri, tos_uri FROM applications WHERE id = ?',
        )
        .get(applicationId)!;
    expect(links().policy_uri).toBe('https://squatter.example/privacy');
    await takeBack();
    expect(links()).toEqual({ policy_uri: null, tos_uri: null });
  });
});
