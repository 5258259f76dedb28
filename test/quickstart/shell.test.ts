import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { fixedClock } from '../../src/platform/clock.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { tempDir } from '../helpers/context.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

setDefaultTimeout(90_000);

/**
 * Runs the shell blocks of docs/quickstart.md (those marked `# quickstart: NAME`) with bash, curl,
 * openssl and jq against a real server, doing the browser step in Chromium, so the walk-through a
 * newcomer follows keeps working as written.
 */

const ROOT = resolve(import.meta.dir, '../..');
const DOC = readFileSync(join(ROOT, 'docs/quickstart.md'), 'utf8');
const BLOCKS = new Map(
  [...DOC.matchAll(/```sh\n# quickstart: ([a-z-]+)\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!]),
);
const VARS = [
  'CLIENT_ID',
  'CONFIDENTIAL_ID',
  'CONFIDENTIAL_SECRET',
  'CODE_VERIFIER',
  'CODE_CHALLENGE',
  'STATE',
  'NONCE',
  'BASE',
  'REDIRECT_URI',
  'SCOPE',
  'AUTH_URL',
  'ACCESS_TOKEN',
  'ID_TOKEN',
  'DOCUMENT_REFERENCE',
];

let server: TestServer;
let browser: Browser;
let work: ReturnType<typeof tempDir>;

beforeAll(async () => {
  server = await startTestServer({ clock: fixedClock(Date.now()) });
  browser = await launchChromium();
  work = tempDir('verity-quickstart');
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  work?.cleanup();
});

/**
 * Runs the named blocks in one bash, in a working directory that keeps the files they write; the
 * shell variables they set carry over to the next call, as they would in one terminal.
 */
async function shell(
  names: string[],
  env: Record<string, string> = {},
): Promise<{ stdout: string; vars: Record<string, string> }> {
  const body = names.map((n) => {
    const block = BLOCKS.get(n);
    if (!block) throw new Error(`docs/quickstart.md has no block "# quickstart: ${n}"`);
    return block;
  });
  const script = [
    'set -euo pipefail',
    `[ -f '${work.dir}/vars.sh' ] && source '${work.dir}/vars.sh'`,
    ...Object.entries(env).map(([k, v]) => `${k}='${v}'`),
    // Run from the checkout, as the quickstart is; it writes no files. `verity` as the quickstart
    // defines it, pointed at the test server's configuration.
    `verity() { "${process.execPath}" "${ROOT}/src/main.ts" "$@" --config "${server.configPath}"; }`,
    `BASE=${server.ctx.config.server.base_url}`,
    ...body,
    `for v in ${VARS.join(' ')}; do if [ -n "\${!v+x}" ]; then declare -p "$v"; fi; done > '${work.dir}/vars.sh'`,
    `for v in ${VARS.join(' ')}; do if [ -n "\${!v+x}" ]; then printf '%s=%s\\n' "$v" "\${!v}"; fi; done > '${work.dir}/vars.txt'`,
  ].join('\n');
  const proc = Bun.spawn(['bash', '-c', script], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`blocks ${names.join(', ')} failed (${code}): ${stderr}`);
  const vars = Object.fromEntries(
    readFileSync(join(work.dir, 'vars.txt'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return { stdout, vars };
}

/** Step 4 in Chromium: Ada, face check, Allow (unless an identical consent already exists). */
async function signIn(url: string): Promise<URL> {
  const context = await browser.newContext();
  const page = await context.newPage();
  // Nothing listens on the quickstart's redirect URI; the browser's request still carries the code.
  await page.route('http://localhost:3000/**', (route) => route.fulfill({ body: 'callback' }));
  const arrived = page.waitForRequest((r) => r.url().startsWith('http://localhost:3000/callback'));
  await page.goto(url);
  await page.getByRole('button', { name: 'Ada Sandbox', exact: true }).click();
  await page.getByRole('button', { name: 'Pass face check' }).click();
  const allow = page.getByRole('button', { name: 'Allow' });
  await Promise.race([arrived, allow.waitFor().then(() => allow.click())]);
  const callback = new URL((await arrived).url());
  await context.close();
  return callback;
}

test('the walk-through: register, PKCE, sign in, exchange (JSON, form + Basic, JSON + Basic), read, validate', async () => {
  const registered = await shell(['register-public', 'register-confidential']);
  expect(registered.vars.CLIENT_ID).toStartWith('cid_test_');
  expect(registered.vars.CONFIDENTIAL_SECRET).toStartWith('cs_test_');

  // Public client, JSON body.
  const { vars } = await shell(['pkce', 'authorize-url']);
  expect(vars.CODE_VERIFIER!.length).toBeGreaterThanOrEqual(43);
  expect(vars.CODE_VERIFIER!.length).toBeLessThanOrEqual(128);
  expect(vars.STATE!.length).toBeGreaterThanOrEqual(43);
  let callback = await signIn(vars.AUTH_URL!);
  expect(callback.searchParams.get('state')).toBe(vars.STATE!);
  const exchanged = await shell(['token-json'], { CODE: callback.searchParams.get('code')! });
  expect(exchanged.stdout).toContain('"expires_in": 900');
  expect(exchanged.vars.ACCESS_TOKEN).toStartWith('at_');

  const userinfo = JSON.parse((await shell(['userinfo'])).stdout);
  expect(userinfo.name).toBe('Ada Sandbox');
  const document = JSON.parse((await shell(['documents'])).stdout);
  expect(document.data).toMatchObject({ documentType: 'passport', issuingCountry: 'DE' });
  expect(document.data.proof.type).toBe('verity_attestation_ref');
  const idToken = JSON.parse((await shell(['id-token'])).stdout);
  expect(idToken.sub).toBe(userinfo.sub);
  expect(idToken.kid).toBeString();

  // Confidential client: form body with Basic, then JSON body with Basic, one sign-in each.
  for (const block of ['token-form-basic', 'token-json-basic']) {
    const next = await shell(['pkce', 'authorize-url'], { CLIENT_ID: registered.vars.CONFIDENTIAL_ID! });
    callback = await signIn(next.vars.AUTH_URL!);
    expect(callback.searchParams.get('state')).toBe(next.vars.STATE!);
    const tokens = await shell([block, 'userinfo'], { CODE: callback.searchParams.get('code')! });
    expect(tokens.vars.ACCESS_TOKEN).toStartWith('at_');
    expect(JSON.parse(tokens.stdout).email).toBe('ada@sandbox.example');
  }
});
