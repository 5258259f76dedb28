import { describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { signatureHeader } from '../../src/webhooks/sign.ts';
import { verifyWebhook } from '../../src/webhooks/verify.ts';

const secret = 'whsec_receiver-test-secret';
const body =
  '{"id":"5f0c6d1e-0000-4000-8000-000000000000","type":"webhook.test","createdAt":"2026-06-01T12:00:00.000Z","data":{"endpointId":"we_1"}}';
const t = 1_780_315_200;
const at = (unixSeconds: number) => new Date(unixSeconds * 1000);
const hmac = (key: string, payload: string) => createHmac('sha256', key).update(payload).digest('hex');

describe('verifyWebhook (the receiver guide’s function)', () => {
  test('accepts a signature made by an independent HMAC over t.rawBody', async () => {
    const header = `t=${t},v1=${hmac(secret, `${t}.${body}`)}`;
    expect(
      await verifyWebhook({ rawBody: body, signatureHeader: header, secrets: [secret], now: at(t) }),
    ).toEqual({
      ok: true,
      timestamp: t,
    });
    expect(header).toBe(await signatureHeader(t, body, [secret]));
    // Raw bytes work as well as a string.
    const bytes = new TextEncoder().encode(body);
    expect(
      (await verifyWebhook({ rawBody: bytes, signatureHeader: header, secrets: [secret], now: at(t) })).ok,
    ).toBe(true);
  });

  test('the tolerance is 300 seconds on both sides', async () => {
    const header = await signatureHeader(t, body, [secret]);
    const check = (now: number) =>
      verifyWebhook({ rawBody: body, signatureHeader: header, secrets: [secret], now: at(now) });
    expect((await check(t + 300)).ok).toBe(true);
    expect((await check(t - 300)).ok).toBe(true);
    expect(await check(t + 301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(await check(t - 301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  test('a re-serialised body, a moved timestamp or a wrong secret is refused', async () => {
    const header = await signatureHeader(t, body, [secret]);
    const reparsed = JSON.stringify(JSON.parse(body), null, 1);
    expect(
      (await verifyWebhook({ rawBody: reparsed, signatureHeader: header, secrets: [secret], now: at(t) })).ok,
    ).toBe(false);
    const moved = header.replace(`t=${t}`, `t=${t + 1}`);
    expect(
      await verifyWebhook({ rawBody: body, signatureHeader: moved, secrets: [secret], now: at(t) }),
    ).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
    expect(
      (await verifyWebhook({ rawBody: body, signatureHeader: header, secrets: ['whsec_other'], now: at(t) }))
        .ok,
    ).toBe(false);
  });

  test('during a rotation any v1 matching any known secret is enough', async () => {
    const header = await signatureHeader(t, body, ['whsec_new', 'whsec_old']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    for (const secrets of [['whsec_old'], ['whsec_new'], ['whsec_unrelated', 'whsec_old']])
      expect((await verifyWebhook({ rawBody: body, signatureHeader: header, secrets, now: at(t) })).ok).toBe(
        true,
      );
  });

  test('malformed headers are refused; unknown schemes are ignored', async () => {
    const good = hmac(secret, `${t}.${body}`);
    for (const header of [
      undefined,
      '',
      'v1=abc',
      `t=${t}`,
      `t=soon,v1=${good}`,
      `t=${t},t=${t},v1=${good}`,
      `t=${t},v1=${good.slice(2)}`,
    ])
      expect(
        (await verifyWebhook({ rawBody: body, signatureHeader: header, secrets: [secret], now: at(t) })).ok,
      ).toBe(false);
    const withV0 = `t=${t},v0=deadbeef,v1=${good}`;
    expect(
      (await verifyWebhook({ rawBody: body, signatureHeader: withV0, secrets: [secret], now: at(t) })).ok,
    ).toBe(true);
  });
});
