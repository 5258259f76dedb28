import { expect, test } from 'bun:test';
import { bundleBrowserHelper, bundleSpaClient } from '../../scripts/build-sdk-browser.ts';
import { BROWSER_HELPER_JS, SPA_CLIENT_JS } from '../../src/sdk/browser/bundle.gen.ts';

// Stale? Run: bun scripts/build-sdk-browser.ts
test('the served browser helper bundle is built from the current source and stays small', async () => {
  expect(BROWSER_HELPER_JS).toBe(await bundleBrowserHelper());
  expect(BROWSER_HELPER_JS.length).toBeLessThan(16 * 1024);
  expect(BROWSER_HELPER_JS).toContain('service:oauth:complete');
});

test('the single-page app bundle is built from the current source and stays reasonable', async () => {
  expect(SPA_CLIENT_JS).toBe(await bundleSpaClient());
  // jose's verification and the SDK's client; a page loads it once and caches it.
  expect(SPA_CLIENT_JS.length).toBeLessThan(48 * 1024);
  expect(SPA_CLIENT_JS).toContain('createSpaClient');
});
