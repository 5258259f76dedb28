import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { dispatchDue } from '../../src/webhooks/dispatcher.ts';
import { verifyWebhook } from '../../src/webhooks/verify.ts';
import {
  createApp_,
  endpointIdOn,
  location,
  P,
  type Portal,
  page,
  portal,
  signUp,
  submit,
  submitPage,
} from './portal-helpers.ts';

// Each account costs an argon2id hash (19 MiB, by design slow); a loaded machine needs the margin.
setDefaultTimeout(30_000);

let p: Portal;
let receiver: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => {
  receiver?.stop(true);
  receiver = undefined;
  p?.cleanup();
});

interface Received {
  headers: Headers;
  body: string;
}

/** A real loopback webhook receiver that records every request and answers `status`. */
function startReceiver(status = 200) {
  const got: Received[] = [];
  receiver = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      got.push({ headers: req.headers, body: await req.text() });
      return new Response('ok', { status });
    },
  });
  return { url: `http://localhost:${receiver.port}/hook`, got };
}

describe('webhooks in the portal', () => {
  test('add endpoint (secret once), send a test event, see it in the history, rotate with overlap, redeliver', async () => {
    p = await portal({ extra: '[webhooks]\nallow_localhost_in_sandbox = true' });
    const rx = startReceiver();
    const b = await signUp(p, 'dev@example.com');
    const { applicationId } = await createApp_(b);
    const hb = `${P}/apps/${applicationId}/sandbox/webhooks`;

    const noEvents = await submit(b, `${hb}/new`, hb, { url: rx.url, events: [] });
    expect(noEvents.status).toBe(400);
    expect(await noEvents.text()).toContain('href="#events"');
    const badUrl = await submit(b, `${hb}/new`, hb, { url: 'ftp://example.com/x', events: 'webhook.test' });
    expect(badUrl.status).toBe(400);
    expect(await badUrl.text()).toMatch(/id="url-error">Must use https/);

    const created = await submitPage(b, `${hb}/new`, hb, {
      url: rx.url,
      events: ['webhook.test', 'consent.granted'],
      description: 'Local receiver',
    });
    expect(created.res.status).toBe(200);
    const secret = /(whsec_[\w-]+)/.exec(created.html)![1]!;
    const list = await (await b.get(hb)).text();
    expect(list).toContain(rx.url);
    expect(list).not.toContain(secret);
    const endpointId = endpointIdOn(list)!;

    const tested = await submit(b, hb, `${hb}/${endpointId}/test`, {});
    expect(tested.status).toBe(303);
    const eventId = new URL(location(tested), 'http://x').searchParams.get('tested')!;
    await dispatchDue(p.ctx);
    expect(rx.got).toHaveLength(1);
    const verified = await verifyWebhook({
      rawBody: rx.got[0]!.body,
      signatureHeader: rx.got[0]!.headers.get('service-signature')!,
      secrets: [secret],
      now: p.ctx.clock.now(),
    });
    expect(verified.ok).toBe(true);

    const history = await (await b.get(`${hb}/history`)).text();
    expect(history).toContain(eventId);
    expect(history).toContain('Delivered');
    expect(history).toMatch(/<td>200<\/td>/);
    expect(history).toMatch(/\d+ ms/);
    // Filters: an event type with no deliveries, and a status.
    expect(await (await b.get(`${hb}/history?eventType=consent.revoked`)).text()).toContain(
      'No deliveries match.',
    );
    expect(await (await b.get(`${hb}/history?status=delivered&endpointId=${endpointId}`)).text()).toContain(
      eventId,
    );

    // Rotate with a one-hour overlap: deliveries carry both signatures.
    expect(await (await b.get(`${hb}/${endpointId}/rotate`)).text()).toContain(
      'Keep the current secret valid for',
    );
    const { html: rotatedHtml } = await submitPage(
      b,
      `${hb}/${endpointId}/rotate`,
      `${hb}/${endpointId}/rotate`,
      {
        overlap: '3600',
      },
    );
    const newSecret = /(whsec_[\w-]+)/.exec(rotatedHtml)![1]!;
    expect(newSecret).not.toBe(secret);
    expect(rotatedHtml).toContain('2026-06-01 13:00 UTC');

    const again = await submit(b, `${hb}/history`, `${hb}/events/${eventId}/redeliver`, { endpointId });
    expect(again.status).toBe(303);
    await dispatchDue(p.ctx);
    expect(rx.got).toHaveLength(2);
    expect(JSON.parse(rx.got[1]!.body).id).toBe(eventId);
    for (const s of [secret, newSecret])
      expect(
        (
          await verifyWebhook({
            rawBody: rx.got[1]!.body,
            signatureHeader: rx.got[1]!.headers.get('service-signature')!,
            secrets: [s],
            now: p.ctx.clock.now(),
          })
        ).ok,
      ).toBe(true);
  });

  test('a rotation overlap past its range is a 400 page naming the rule, and rotates nothing', async () => {
    p = await portal({ extra: '[webhooks]\nallow_localhost_in_sandbox = true' });
    const b = await signUp(p, 'dev@example.com');
    const { applicationId } = await createApp_(b);
    const hb = `${P}/apps/${applicationId}/sandbox/webhooks`;
    await submitPage(b, `${hb}/new`, hb, { url: 'http://localhost:9/hook', events: ['webhook.test'] });
    const eid = endpointIdOn(await (await b.get(hb)).text())!;
    const secrets = () =>
      p.ctx.db.sql.prepare<{ n: number }>('SELECT count(*) AS n FROM webhook_secrets').get()!.n;
    const before = secrets();
    const res = await submit(b, `${hb}/${eid}/rotate`, `${hb}/${eid}/rotate`, { overlap: '9999999' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('must be a whole number of seconds from 0 to 604800');
    expect(secrets()).toBe(before);
  });

  test('edit, disable (test refused), enable, delete with confirmation; production pages need production', async () => {
    p = await portal({ extra: '[webhooks]\nallow_localhost_in_sandbox = true' });
    const rx = startReceiver();
    const b = await signUp(p, 'dev@example.com');
    const { applicationId } = await createApp_(b);
    const hb = `${P}/apps/${applicationId}/sandbox/webhooks`;
    await submit(b, `${hb}/new`, hb, { url: rx.url, events: ['webhook.test'] });
    const endpointId = endpointIdOn(await (await b.get(hb)).text())!;

    const edited = await submit(b, `${hb}/${endpointId}/edit`, `${hb}/${endpointId}/edit`, {
      url: `${rx.url}?v=2`,
      events: ['webhook.test', 'consent.revoked'],
      description: 'v2',
      enabled: '1',
    });
    expect(edited.status).toBe(303);
    expect(await (await b.get(hb)).text()).toContain('consent.revoked');

    await submit(b, hb, `${hb}/${endpointId}/disable`, {});
    expect(await (await b.get(hb)).text()).toContain('Disabled');
    const refused = await submit(b, hb, `${hb}/${endpointId}/test`, {});
    expect(refused.status).toBe(409);
    await submit(b, hb, `${hb}/${endpointId}/enable`, {});
    expect((await submit(b, hb, `${hb}/${endpointId}/test`, {})).status).toBe(303);

    expect(await (await b.get(`${hb}/${endpointId}/delete`)).text()).toContain('Delete this endpoint?');
    const deleted = await submit(b, `${hb}/${endpointId}/delete`, `${hb}/${endpointId}/delete`, {});
    expect(location(deleted)).toBe(`${hb}?deleted=1`);
    expect((await b.get(`${hb}/${endpointId}/edit`)).status).toBe(404);
    expect((await page(b, `${P}/apps/${applicationId}/production/webhooks`)).res.status).toBe(404);
  });
});
