import type { Page } from 'playwright-core';

/**
 * A loopback relying party: `/callback` records the query it receives; `/start?to=URL` is a page
 * whose button opens URL in a popup (as an application using `display=popup` does).
 */
export function startRelyingParty() {
  const callbacks: Record<string, string>[] = [];
  const waiters: ((q: Record<string, string>) => void)[] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === '/callback') {
        const q = Object.fromEntries(url.searchParams);
        callbacks.push(q);
        for (const w of waiters.splice(0)) w(q);
        // The empty icon keeps the browser from asking for /favicon.ico (a 404 is a console error).
        return new Response(
          '<!doctype html><title>Done</title><link rel="icon" href="data:,"><p>Signed in</p>',
          {
            headers: { 'content-type': 'text/html' },
          },
        );
      }
      if (url.pathname === '/start') {
        const to = JSON.stringify(url.searchParams.get('to'));
        return new Response(
          `<!doctype html><title>App</title><link rel="icon" href="data:,"><button id="go">Sign in with Verity</button>
           <script>document.getElementById('go').onclick = () => window.open(${to}, 'verity', 'width=480,height=640');</script>`,
          { headers: { 'content-type': 'text/html' } },
        );
      }
      return new Response('not found', { status: 404 });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    callbackUrl: `${origin}/callback`,
    callbacks,
    /** The next callback's query (or the last one if it already arrived). */
    nextCallback(): Promise<Record<string, string>> {
      return new Promise((resolve) => waiters.push(resolve));
    },
    stop: () => server.stop(true),
  };
}

/** Collects CSP violations and page errors, which a correct page never produces. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return problems;
}

/** Sandbox persona → face pass → Allow, by role and accessible name as a person (or screen reader) finds them. */
export async function completeSandboxFlow(page: Page, persona = 'Ada Sandbox'): Promise<void> {
  await page.getByRole('button', { name: persona, exact: true }).click();
  await page.getByRole('button', { name: 'Pass face check' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
}
