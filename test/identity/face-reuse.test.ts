import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { Browser, decide, type Flow, flow, location, open, passFace, signInPersona } from './flow-helpers.ts';

setDefaultTimeout(20_000);

let f: Flow;
afterEach(() => f?.cleanup());

const REUSE = '[face]\nreuse_within = "10m"';

const request = (path: string) =>
  f.ctx.db.sql
    .prepare<{ status: string; amr: string; liveness_verified: number | null }>(
      'SELECT status, amr, liveness_verified FROM authorization_requests WHERE id = ?',
    )
    .get(path.split('/').pop()!)!;

/** Ada signs in, passes face assurance and allows, in `b`. */
async function connectAda(b: Browser, purpose: string) {
  const path = await f.authorize({ purpose }, b);
  expect(location(await signInPersona(b, path))).toBe(`${path}/face`);
  await passFace(b, path);
  expect(location(await decide(b, path, 'allow'))).toStartWith('https://rp.example/callback?code=');
}

/** Where a new authorization in `b` goes once opened (the person already signed in). */
async function nextStep(b: Browser, purpose: string) {
  const path = await f.authorize({ purpose }, b);
  const { res } = await open(b, path);
  return { path, to: location(res) };
}

describe('[face] reuse_within', () => {
  test('off by default: every authorization asks for a face check', async () => {
    f = await flow();
    expect(f.ctx.config.face.reuse_within).toBe(0);
    await connectAda(f.browser, 'First');
    const { path, to } = await nextStep(f.browser, 'Second');
    expect(to).toBe(`${path}/face`);
  });

  test('on: a face check in the same session is reused within the window, then asked again', async () => {
    f = await flow({ extra: REUSE });
    await connectAda(f.browser, 'First');

    f.ctx.clock.advance(9 * 60_000);
    const reused = await nextStep(f.browser, 'Second');
    expect(reused.to).toBe(`${reused.path}/consent`);
    // This authorization did not perform the check: no `face` in amr, and not verified by it.
    expect(request(reused.path)).toMatchObject({
      status: 'face_passed',
      amr: '["sandbox"]',
      liveness_verified: 0,
    });

    f.ctx.clock.advance(60_000);
    const expired = await nextStep(f.browser, 'Third');
    expect(expired.to).toBe(`${expired.path}/face`);
  });

  test('on: the face check belongs to the session, so another browser of the same person checks again', async () => {
    f = await flow({ extra: REUSE });
    await connectAda(f.browser, 'First');
    const other = new Browser(f.app);
    const path = await f.authorize({ purpose: 'First' }, other);
    expect(location(await signInPersona(other, path))).toBe(`${path}/face`);
  });

  test('on: signing in again starts without a face check', async () => {
    f = await flow({ extra: REUSE });
    await connectAda(f.browser, 'First');
    const path = await f.authorize({ purpose: 'First', prompt: 'login' });
    expect(location(await signInPersona(f.browser, path))).toBe(`${path}/face`);
  });
});
