import { expect, test } from 'bun:test';
import { bundleBrowserHelper } from '../../scripts/build-sdk-browser.ts';
import { BROWSER_HELPER_JS } from '../../src/sdk/browser/bundle.gen.ts';

test('the served browser helper bundle is built from the current source and stays small', async () => {
  // Stale? Run: bun scripts/build-sdk-browser.ts
  expect(BROWSER_HELPER_JS).toBe(await bundleBrowserHelper());
  expect(BROWSER_HELPER_JS.length).toBeLessThan(16 * 1024);
  expect(BROWSER_HELPER_JS).toContain('service:oauth:complete');
});
