import { type Browser, chromium } from 'playwright-core';

/** Headless Chromium for the browser tests. */
export function launchChromium(
  opts: {
    /** Added to the standard flags, e.g. a fake camera. */
    extraArgs?: string[];
    /**
     * Keep the popup blocker on (Playwright turns it off by default), for tests where the popup
     * transport's fallback must be shown against the real one.
     */
    popupBlocker?: boolean;
  } = {},
): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    ...(opts.popupBlocker ? { ignoreDefaultArgs: ['--disable-popup-blocking'] } : {}),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(opts.extraArgs ?? []),
    ],
  });
}
