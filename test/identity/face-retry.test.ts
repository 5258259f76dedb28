import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { parseConfig } from '../../src/config/load.ts';
import { startFaceCheck } from '../../src/oauth/authorization-result.ts';
import {
  callbackParams,
  claimAccessEvents,
  decide,
  type Flow,
  flow,
  location,
  open,
  passFace,
  signInPersona,
} from './flow-helpers.ts';

setDefaultTimeout(20_000);

let f: Flow;
afterEach(() => f?.cleanup());

const completed = () => claimAccessEvents(f.ctx.db);

const request = (path: string) =>
  f.ctx.db.sql
    .prepare<{ status: string; face_failures: number }>(
      'SELECT status, face_failures FROM authorization_requests WHERE id = ?',
    )
    .get(path.split('/').pop()!)!;

async function atFace(persona = 'ada', params: Record<string, string> = {}) {
  const path = await f.authorize(params);
  expect(location(await signInPersona(f.browser, path, persona))).toBe(`${path}/face`);
  return path;
}

describe('[face] attempts', () => {
  test('a failed check shows the face step again with why and the attempts left; a pass then goes on', async () => {
    f = await flow();
    const path = await atFace();
    const failed = await passFace(f.browser, path, 'fail_match');
    expect(failed.status).toBe(303);
    expect(location(failed)).toBe(`${path}/face`);
    const { html } = await open(f.browser, `${path}/face`);
    expect(html).toContain(
      '<p class="alert" role="alert">The face check did not pass: your face did not match your account. Try again: 2 attempts left.</p>',
    );
    expect(html).toContain('>Pass face check</button>');
    expect(request(path)).toEqual({ status: 'authenticated', face_failures: 1 });
    expect(completed()).toEqual([]);

    expect(location(await passFace(f.browser, path))).toBe(`${path}/consent`);
    expect(callbackParams(await decide(f.browser, path, 'allow')).code).toBeString();
    expect(completed().map((d) => d.decision)).toEqual(['approved']);
  });

  test('the third failure ends the request at the callback, as a failure always did', async () => {
    f = await flow();
    const path = await atFace('finn');
    for (const left of [2, 1]) {
      expect(location(await passFace(f.browser, path))).toBe(`${path}/face`);
      expect((await open(f.browser, `${path}/face`)).html).toContain(
        `the liveness check failed. Try again: ${left} ${left === 1 ? 'attempt' : 'attempts'} left.`,
      );
    }
    const q = callbackParams(await passFace(f.browser, path));
    expect(q.error).toBe('access_denied');
    expect(q.error_description).toContain('liveness');
    expect(q.state).toBe('state-123');
    expect(q.iss).toBe(f.ctx.config.server.base_url);
    expect(request(path)).toEqual({ status: 'failed', face_failures: 3 });
    expect(completed()).toEqual([expect.objectContaining({ decision: 'failed', reason: 'liveness_failed' })]);
    expect((await f.browser.get(`${path}/face`)).status).toBe(404);
  });

  test('reopening the request or the face page does not start the count again', async () => {
    f = await flow({ extra: '[face]\nattempts = 2' });
    const path = await atFace('eve');
    await passFace(f.browser, path);
    // Back to the request's own address, as a second tab or a reload would go.
    expect(location(await f.browser.get(path))).toBe(`${path}/face`);
    expect((await open(f.browser, `${path}/face`)).html).toContain('1 attempt left');
    expect(callbackParams(await passFace(f.browser, path)).error).toBe('access_denied');
  });

  test('concurrent posts: no more checks than attempts, and exactly one ends the request', async () => {
    f = await flow();
    const path = await atFace('eve');
    const { csrf } = await open(f.browser, `${path}/face`);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => f.browser.post(`${path}/face`, { csrf_token: csrf, outcome: 'pass' })),
    );
    const toCallback = answers.filter((r) => location(r).startsWith('https://rp.example/callback'));
    expect(toCallback).toHaveLength(1);
    // The three posts past the attempts find none left to start, and are shown the face step again.
    expect(answers.filter((r) => location(r) === `${path}/face`)).toHaveLength(3);
    expect(answers.filter((r) => r.status === 404)).toHaveLength(2);
    expect(request(path)).toEqual({ status: 'failed', face_failures: 3 });
    expect(completed()).toHaveLength(1);
  });

  test('a last check cut off by a crash ends the request once it can no longer be running', async () => {
    f = await flow({ extra: '[face]\nattempts = 1\ntimeout = "10s"' });
    const path = await atFace('ada');
    // What a crash during the provider's call leaves behind: the attempt counted, no answer (started
    // late in a second, which whole seconds would round away).
    f.ctx.clock.advance(999);
    expect(startFaceCheck(f.ctx, path.split('/').pop()!)).toBe(true);
    // While that check could still be running, another post (a double submit) shows the step again.
    const { csrf } = await open(f.browser, `${path}/face`);
    const again = await f.browser.post(`${path}/face`, { csrf_token: csrf, outcome: 'pass' });
    expect(location(again)).toBe(`${path}/face`);
    expect(request(path)).toEqual({ status: 'authenticated', face_failures: 1 });
    // Still within the provider's timeout and a second: the face step again.
    f.ctx.clock.advance(10_999);
    expect((await f.browser.get(`${path}/face`)).status).toBe(200);
    // Past them it cannot be running: the request ends, reported to the application.
    f.ctx.clock.advance(2);
    const q = callbackParams(await f.browser.get(`${path}/face`));
    expect(q.error).toBe('access_denied');
    expect(q.error_description).toBe('Face assurance could not be completed: the last check was interrupted');
    expect(request(path)).toEqual({ status: 'failed', face_failures: 1 });
    expect(completed()).toEqual([
      expect.objectContaining({ decision: 'failed', reason: 'face_check_cut_off' }),
    ]);
  });

  test('the setting is a whole number from 1 to 10, 3 by default', () => {
    expect(parseConfig('').face.attempts).toBe(3);
    expect(parseConfig('[face]\nattempts = 10').face.attempts).toBe(10);
    for (const bad of ['0', '11', '2.5', '"3"'])
      expect(() => parseConfig(`[face]\nattempts = ${bad}`)).toThrow(/face\.attempts/);
  });
});
