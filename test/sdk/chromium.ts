import { type Browser, chromium } from 'playwright-core';

/**
 * Headless Chromium for the browser tests. The popup blocker stays on (Playwright turns it off by
 * default), because the popup transport's fallback must be shown against the real one.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    ignoreDefaultArgs: ['--disable-popup-blocking'],
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
