import { afterEach, expect, setDefaultTimeout, test } from 'bun:test';
import { createApiKey } from '../../src/developer/api-key.store.ts';
import { findDeveloperByEmail } from '../../src/developer/developer.store.ts';
import { Browser, createApp_, P, type Portal, portal, signUp, submit } from '../developer/portal-helpers.ts';

setDefaultTimeout(30_000);

/**
 * Taking an unverified account back revokes its API keys and deletes its webhook endpoints
 * (docs/reference.md, "Developer email verification"). A developer API request the squatter is still
 * sending at that moment must not add one back.
 */
let p: Portal;
let mail: string[];
afterEach(() => p?.cleanup());

test('a developer API request still being sent when the owner takes the account back adds no endpoint', async () => {
  mail = [];
  p = await portal({ extra: '[webhooks]\nallow_localhost_in_sandbox = true' });
  p.ctx.email = { send: async (m) => void mail.push(m.text) };
  const squatter = await signUp(p, 'owner@example.com', { verified: false });
  const app = await createApp_(squatter, {});
  const applicationId = app.applicationId;
  const developerId = findDeveloperByEmail(p.ctx.db, 'owner@example.com')!.developerId;
  const { key } = await createApiKey(p.ctx.db, p.ctx.clock, developerId, 'sandbox');

  const body = new TextEncoder().encode(
    JSON.stringify({
      url: 'https://93.184.215.14/squatter',
      events: ['consent.granted', 'claim_access.completed'],
    }),
  );
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const inFlight = p.app.request(`/v1/developer/applications/${applicationId}/webhooks`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': String(body.byteLength),
    },
    body: new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(body.slice(0, 10));
        await held;
        controller.enqueue(body.slice(10));
        controller.close();
      },
    }),
    // @ts-expect-error: a streamed request body
    duplex: 'half',
  });
  await Bun.sleep(50);

  // The owner takes the account back with a reset link.
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

  release();
  const res = await inFlight;
  const text = await res.text();
  expect(text).not.toContain('whsec_');
  expect(res.status).toBe(401);
  const n = p.ctx.db.sql
    .prepare<{ n: number }>('SELECT count(*) AS n FROM webhook_endpoints WHERE application_id = ?')
    .get(applicationId)!.n;
  expect(n).toBe(0);
});
