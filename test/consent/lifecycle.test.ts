import { afterEach, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listAudit } from '../../src/audit/audit.store.ts';
import { grantConsent } from '../../src/consent/grant.ts';
import { heldBy } from '../../src/consent/holder.ts';
import { consentJobs } from '../../src/consent/jobs.ts';
import {
  disconnectApplication,
  expireConsents,
  revokeConsent,
  revokePersonConsents,
} from '../../src/consent/lifecycle.ts';
import { subjectFor } from '../../src/keys/pairwise.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { cli } from '../helpers/cli.ts';
import { type TestContext, testContext, testToml } from '../helpers/context.ts';
import { refuseWrites } from '../helpers/db-probes.ts';
import { createTestConsent, inProcess, REDIRECT } from '../oauth/fixtures.ts';
import { bearer, issueToken } from '../userinfo/fixtures.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

const SCOPES = ['openid', 'profile', 'email'];
const ADA = 'psn_sandbox_ada';
const ADA_HOLDER = { personId: ADA, sessionIdHash: null };

async function setup(extra = '') {
  ctx = await testContext({ extra });
  return createTestApp(ctx, {
    type: 'confidential',
    redirectUris: [REDIRECT],
    scopes: SCOPES,
    subscribed: true,
  });
}

/** A consent granted as the consent screen grants it, and a token issued under it. */
async function consentWithToken(app: TestApp, purpose = 'Sign in', personId = ADA) {
  const consent = await grantConsent(ctx, {
    applicationId: app.applicationId,
    environment: 'sandbox',
    environmentId: app.environmentId,
    personId,
    sessionIdHash: null,
    purpose,
    scopes: SCOPES,
  });
  const { accessToken } = await issueToken(ctx, app, {
    scopes: SCOPES,
    personId,
    grant: { consentId: consent.id },
  });
  return { consentId: consent.id, accessToken };
}

async function userinfoStatus(token: string) {
  const res = await inProcess(ctx)('/v1/userinfo', bearer(token));
  return {
    status: res.status,
    body: (await res.json()) as any,
    challenge: res.headers.get('www-authenticate'),
  };
}

const revokedEvents = () =>
  ctx.db.sql
    .prepare<{ body: string }>("SELECT body FROM webhook_events WHERE type = 'consent.revoked' ORDER BY id")
    .all()
    .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });

const consentRow = (id: string) =>
  ctx.db.sql
    .prepare<{
      status: string;
      end_reason: string | null;
      ended_at: number | null;
      last_used_at: number | null;
    }>('SELECT status, end_reason, ended_at, last_used_at FROM consents WHERE id = ?')
    .get(id)!;

const liveTokens = (consentId: string) =>
  ctx.db.sql
    .prepare<{ n: number }>(
      'SELECT count(*) AS n FROM access_tokens WHERE consent_id = ? AND revoked_at IS NULL',
    )
    .get(consentId)!.n;

function expectCutOff(r: Awaited<ReturnType<typeof userinfoStatus>>) {
  expect(r.status).toBe(401);
  expect(r.body.error.code).toBe('invalid_token');
  expect(r.challenge).toBe('Bearer error="invalid_token"');
}

describe('revocation', () => {
  test('by the person: the unexpired token stops working at once, consent.revoked is recorded with the reason', async () => {
    const app = await setup();
    const { consentId, accessToken } = await consentWithToken(app);
    expect((await userinfoStatus(accessToken)).status).toBe(200);

    ctx.clock.advance(60_000);
    const r = await revokeConsent(ctx, consentId, 'revoked_by_person', {
      within: heldBy(ADA_HOLDER),
      actor: `person:${ADA}`,
    });
    expect(r.changed).toBe(true);
    expectCutOff(await userinfoStatus(accessToken));
    expect(consentRow(consentId)).toMatchObject({ status: 'revoked', end_reason: 'revoked_by_person' });
    expect(liveTokens(consentId)).toBe(0);

    const events = revokedEvents();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual({
      consentId,
      applicationId: app.applicationId,
      environment: 'sandbox',
      sub: await subjectFor(ctx, app.applicationId, ADA),
      scopes: [...SCOPES].sort(),
      purpose: 'Sign in',
      at: ctx.clock.now().toISOString(),
      reason: 'revoked_by_person',
    });
  });

  test("revoking twice sends one event; a person cannot revoke someone else's consent", async () => {
    const app = await setup();
    const { consentId } = await consentWithToken(app);
    await expect(
      revokeConsent(ctx, consentId, 'revoked_by_person', {
        within: heldBy({ personId: 'psn_sandbox_ben', sessionIdHash: null }),
      }),
    ).rejects.toThrow();
    expect(consentRow(consentId).status).toBe('active');
    await revokeConsent(ctx, consentId, 'revoked_by_person', { within: heldBy(ADA_HOLDER) });
    const again = await revokeConsent(ctx, consentId, 'revoked_by_person', { within: heldBy(ADA_HOLDER) });
    expect(again.changed).toBe(false);
    expect(revokedEvents()).toHaveLength(1);
  });

  test('the revocation and its event commit together: no revocation without the event', async () => {
    const app = await setup();
    const { consentId, accessToken } = await consentWithToken(app);
    refuseWrites(ctx.db, 'webhook_events', { when: "NEW.type = 'consent.revoked'" });
    await expect(revokeConsent(ctx, consentId, 'revoked_by_operator')).rejects.toThrow();
    expect(consentRow(consentId).status).toBe('active');
    expect(liveTokens(consentId)).toBe(1);
    expect((await userinfoStatus(accessToken)).status).toBe(200);
  });

  test('every use records last_used_at on the consent', async () => {
    const app = await setup();
    const { consentId, accessToken } = await consentWithToken(app);
    ctx.clock.advance(120_000);
    expect((await userinfoStatus(accessToken)).status).toBe(200);
    expect(consentRow(consentId).last_used_at).toBe(Math.floor(ctx.clock.now().getTime() / 1000));
  });

  // A process writes a consent's use at most once a second: neither a second consent in the same
  // second nor the same consent a second later may be skipped.
  test('uses are recorded per consent and per second, however many come in one second', async () => {
    const app = await setup();
    const a = await consentWithToken(app, 'Sign in');
    const b = await consentWithToken(app, 'Check out');
    const second = () => Math.floor(ctx.clock.now().getTime() / 1000);
    ctx.clock.advance(60_000);
    for (const token of [a.accessToken, a.accessToken, b.accessToken])
      expect((await userinfoStatus(token)).status).toBe(200);
    expect(consentRow(a.consentId).last_used_at).toBe(second());
    expect(consentRow(b.consentId).last_used_at).toBe(second());
    ctx.clock.advance(1_000);
    expect((await userinfoStatus(a.accessToken)).status).toBe(200);
    expect(consentRow(a.consentId).last_used_at).toBe(second());
  });
});

describe("a change made together with the end of a person's consents", () => {
  test('is made once, in the first round, though a consent granted meanwhile sends the loop round again', async () => {
    const one = await setup();
    const two = await createTestApp(ctx, { type: 'confidential', redirectUris: [REDIRECT], scopes: SCOPES });
    await consentWithToken(one);
    let calls = 0;
    const ended = await revokePersonConsents(ctx, ADA, {
      together: () => {
        // The first time, as a consent to another application is granted at that very moment.
        if (++calls === 1) createTestConsent(ctx, two, ADA, SCOPES);
      },
    });
    expect(calls).toBe(1);
    expect(ended).toHaveLength(2);
    const active = ctx.db.sql
      .prepare<{ n: number }>("SELECT count(*) AS n FROM consents WHERE person_id = ? AND status = 'active'")
      .get(ADA)!.n;
    expect(Number(active)).toBe(0);
  });
});

describe('disconnect', () => {
  test('ends every consent the person gave the application, and only those', async () => {
    const app = await setup();
    const other = await createTestApp(ctx, {
      type: 'public',
      redirectUris: [REDIRECT],
      scopes: SCOPES,
      subscribed: true,
    });
    const a1 = await consentWithToken(app, 'Sign in');
    const a2 = await consentWithToken(app, 'Check out');
    const b = await consentWithToken(other, 'Sign in');
    const ben = await consentWithToken(app, 'Sign in', 'psn_sandbox_ben');

    const ended = await disconnectApplication(ctx, ADA_HOLDER, app.applicationId, { actor: `person:${ADA}` });
    expect(ended.map((c) => c.id).sort()).toEqual([a1.consentId, a2.consentId].sort());
    expectCutOff(await userinfoStatus(a1.accessToken));
    expectCutOff(await userinfoStatus(a2.accessToken));
    expect((await userinfoStatus(b.accessToken)).status).toBe(200);
    expect((await userinfoStatus(ben.accessToken)).status).toBe(200);
    const events = revokedEvents();
    expect(events.map((e) => e.data.consentId).sort()).toEqual([a1.consentId, a2.consentId].sort());
    expect(events.every((e) => e.data.reason === 'disconnected')).toBe(true);
    expect(consentRow(a1.consentId)).toMatchObject({ status: 'revoked', end_reason: 'disconnected' });
  });
});

describe('expiry', () => {
  test('past [consent] max_age the token is refused at once, and the job records the expiry', async () => {
    const app = await setup('[consent]\nmax_age = "10m"');
    const { consentId, accessToken } = await consentWithToken(app);
    ctx.clock.advance(9 * 60_000);
    expect((await userinfoStatus(accessToken)).status).toBe(200);

    // The token itself has 6 more minutes, but the consent ran out: refused before any job has run.
    ctx.clock.advance(60_000);
    expectCutOff(await userinfoStatus(accessToken));
    expect(consentRow(consentId).status).toBe('active');
    expect(revokedEvents()).toHaveLength(0);

    expect(await expireConsents(ctx)).toBe(1);
    expect(consentRow(consentId)).toMatchObject({ status: 'expired', end_reason: 'expired' });
    expect(liveTokens(consentId)).toBe(0);
    const events = revokedEvents();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ consentId, reason: 'expired' });
    // Idempotent: nothing more to do.
    expect(await expireConsents(ctx)).toBe(0);
    expect(revokedEvents()).toHaveLength(1);
  });

  test('the scheduled job expires what is due and leaves the rest', async () => {
    const app = await setup('[consent]\nmax_age = "10m"');
    const old = await consentWithToken(app, 'Old');
    ctx.clock.advance(5 * 60_000);
    const fresh = await consentWithToken(app, 'Fresh');
    ctx.clock.advance(5 * 60_000);
    const job = consentJobs.find((j) => j.name === 'consent.expire')!;
    await job.run(ctx);
    expect(consentRow(old.consentId).status).toBe('expired');
    expect(consentRow(fresh.consentId).status).toBe('active');
    expect((await userinfoStatus(fresh.accessToken)).status).toBe(200);
  });
});

describe('verity consents (operator)', () => {
  function writeConfig() {
    const path = join(ctx.dir, 'verity.toml');
    writeFileSync(path, testToml(ctx.dir));
    return path;
  }

  test('list --json has the documented shape and filters by application and person', async () => {
    const app = await setup();
    const other = await createTestApp(ctx, { type: 'public', redirectUris: [REDIRECT], scopes: SCOPES });
    const a = await consentWithToken(app);
    const b = await consentWithToken(other, 'Sign in', 'psn_sandbox_ben');
    const config = writeConfig();

    const all = await cli('consents', 'list', '--json', '--config', config);
    expect(all.code).toBe(0);
    // The throwaway consents the code minting helper makes are there too; look at ours.
    const mine = all.json.consents.filter((c: { consentId: string }) =>
      [a.consentId, b.consentId].includes(c.consentId),
    );
    expect(mine).toHaveLength(2);
    const item = mine.find((c: { consentId: string }) => c.consentId === a.consentId);
    expect(item).toMatchObject({
      consentId: a.consentId,
      applicationId: app.applicationId,
      environment: 'sandbox',
      personId: ADA,
      scopes: [...SCOPES].sort(),
      purpose: 'Sign in',
      status: 'active',
      grantedAt: ctx.clock.now().toISOString(),
    });
    for (const key of [
      'consentId',
      'applicationId',
      'environment',
      'personId',
      'scopes',
      'purpose',
      'status',
      'grantedAt',
    ])
      expect(Object.keys(item)).toContain(key);

    const byApp = await cli('consents', 'list', '--app', other.applicationId, '--json', '--config', config);
    expect(
      byApp.json.consents.every((c: { applicationId: string }) => c.applicationId === other.applicationId),
    ).toBe(true);
    expect(byApp.json.consents.map((c: { consentId: string }) => c.consentId)).toContain(b.consentId);
    const byPerson = await cli('consents', 'list', '--json', '--person', ADA, '--config', config);
    expect(byPerson.json.consents.map((c: { consentId: string }) => c.consentId)).toContain(a.consentId);
    expect(byPerson.json.consents.every((c: { personId: string }) => c.personId === ADA)).toBe(true);
  });

  test('revoke cuts off the unexpired token at once, is audited, and answers { consentId, status }', async () => {
    const app = await setup();
    const { consentId, accessToken } = await consentWithToken(app);
    const config = writeConfig();
    expect((await userinfoStatus(accessToken)).status).toBe(200);

    const r = await cli('consents', 'revoke', consentId, '--json', '--config', config);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ consentId, status: 'revoked' });
    expectCutOff(await userinfoStatus(accessToken));
    expect(consentRow(consentId)).toMatchObject({ status: 'revoked', end_reason: 'revoked_by_operator' });
    expect(revokedEvents().map((e) => e.data.reason)).toEqual(['revoked_by_operator']);
    expect(listAudit(ctx.db, { action: 'consent.revoke' })).toEqual([
      expect.objectContaining({ actor: 'cli', target: consentId }),
    ]);

    // Again: still revoked, no second event.
    const again = await cli('consents', 'revoke', '--json', consentId, '--config', config);
    expect(again.json).toEqual({ consentId, status: 'revoked' });
    expect(revokedEvents()).toHaveLength(1);
  });

  test('revoke of an unknown consent fails with exit 1; without an id it is a usage error', async () => {
    await setup();
    const config = writeConfig();
    const r = await cli('consents', 'revoke', 'cns_nope', '--json', '--config', config);
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('FAILED');
    expect((await cli('consents', 'revoke', '--config', config)).code).toBe(2);
  });

  test("persons disable revokes the person's consents (revoked_by_operator) and their tokens stop working", async () => {
    const app = await setup();
    const a = await consentWithToken(app, 'One');
    const b = await consentWithToken(app, 'Two');
    const config = writeConfig();
    const r = await cli('persons', 'disable', ADA, '--json', '--config', config);
    expect(r.code).toBe(0);
    expectCutOff(await userinfoStatus(a.accessToken));
    expectCutOff(await userinfoStatus(b.accessToken));
    const reasons = revokedEvents()
      .filter((e) => [a.consentId, b.consentId].includes(e.data.consentId as string))
      .map((e) => e.data.reason);
    expect(reasons).toEqual(['revoked_by_operator', 'revoked_by_operator']);
    expect(consentRow(a.consentId).end_reason).toBe('revoked_by_operator');
  });

  test('revokePersonConsents leaves other persons alone', async () => {
    const app = await setup();
    const ada = await consentWithToken(app);
    const ben = await consentWithToken(app, 'Sign in', 'psn_sandbox_ben');
    await revokePersonConsents(ctx, ADA);
    expect(consentRow(ada.consentId).status).toBe('revoked');
    expect(consentRow(ben.consentId).status).toBe('active');
  });
});
