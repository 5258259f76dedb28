import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { updateApplication } from '../../src/apps/registration.ts';
import { type Flow, flow, location, open, passFace, signInPersona } from './flow-helpers.ts';

setDefaultTimeout(20_000);

let f: Flow;
afterEach(() => f?.cleanup());

async function consentPage(): Promise<string> {
  const path = await f.authorize();
  expect(location(await signInPersona(f.browser, path, 'ada'))).toBe(`${path}/face`);
  expect(location(await passFace(f.browser, path))).toBe(`${path}/consent`);
  return (await open(f.browser, `${path}/consent`)).html;
}

describe('consent page', () => {
  test("shows the application's name, the host it returns to, and its registered links", async () => {
    f = await flow();
    updateApplication(f.ctx.db, f.ctx.clock, f.client.applicationId, {
      policyUri: 'https://rp.example/privacy',
      tosUri: 'https://rp.example/terms',
      actor: 'cli',
    });
    const html = await consentPage();
    expect(html).toContain('Acme Shop wants to use your information');
    expect(html).toContain('You will return to rp.example');
    for (const [href, label] of [
      ['https://rp.example/privacy', 'Privacy policy'],
      ['https://rp.example/terms', 'Terms of service'],
    ])
      expect(html).toContain(`<a href="${href}" target="_blank" rel="noopener noreferrer">${label} `);
  });

  test('without registered links, none is shown', async () => {
    f = await flow();
    const html = await consentPage();
    expect(html).toContain('You will return to rp.example');
    expect(html).not.toContain('Privacy policy');
    expect(html).not.toContain('target="_blank"');
  });
});
