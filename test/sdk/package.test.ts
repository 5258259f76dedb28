import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packSdk } from '../../scripts/pack-sdk.ts';
import type { createApp } from '../../src/app.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../helpers/apps.ts';
import { tempDir } from '../helpers/context.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, decide, location, passFace, pathOf, signInPersona } from '../identity/flow-helpers.ts';

/**
 * The SDK as an integrator gets it: packed by the build, installed by npm into a fresh project, imported
 * by its name under Node 20, Bun and Deno, signing a person in against a real server.
 */
const root = join(import.meta.dir, '../..');
const modules = realpathSync(join(root, 'node_modules'));
const CALLBACK = 'https://rp.example/callback';

let out: ReturnType<typeof tempDir>;
let project: string;
let server: TestServer;
let client: TestApp;

function run(cmd: string[], cwd: string) {
  const p = Bun.spawnSync(cmd, { cwd, stdout: 'pipe', stderr: 'pipe' });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(' ')} failed:\n${p.stdout}${p.stderr}`);
  return p;
}

beforeAll(async () => {
  out = tempDir('verity-sdk-pack');
  const tarball = await packSdk(out.dir);
  project = join(out.dir, 'app');
  // Offline: the package's own dependencies are linked from this checkout's node_modules, at the
  // versions Verity is tested with; npm checks they satisfy the package's ranges.
  const { dependencies } = JSON.parse(readFileSync(join(out.dir, 'sdk/package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const links = Object.fromEntries(Object.keys(dependencies).map((d) => [d, `file:${join(modules, d)}`]));
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'sdk-consumer',
      private: true,
      type: 'module',
      dependencies: { ...links, '@verity/sdk': `file:${tarball}` },
    }),
  );
  run(['npm', 'install', '--offline', '--no-audit', '--no-fund'], project);
  copyFileSync(join(import.meta.dir, 'package-sign-in.mjs'), join(project, 'sign-in.mjs'));

  server = await startTestServer({
    // The SDK in the child process checks the ID token against the real time.
    clock: fixedClock(Date.now()),
    extra: '[rate_limits.oauth]\nrequests = 1000',
  });
  client = await createTestApp(server.ctx, {
    type: 'confidential',
    redirectUris: [CALLBACK],
    scopes: 'openid email',
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  out?.cleanup();
});

/** A browser talking to the real server over HTTP: persona, face pass, Allow; returns the callback URL. */
async function personaSignIn(authorizationUrl: string): Promise<string> {
  const http = {
    request: (path: string, init?: RequestInit) =>
      fetch(`${server.url}${path}`, { ...init, redirect: 'manual' }),
  };
  const b = new Browser(
    http as unknown as ReturnType<typeof createApp>,
    '127.0.0.1',
    server.ctx.config.server.base_url,
  );
  const path = pathOf(location(await b.get(pathOf(authorizationUrl))));
  await signInPersona(b, path);
  let res = await passFace(b, path);
  if (location(res).endsWith('/consent')) res = await decide(b, path, 'allow');
  return location(res);
}

/** Reads the child's stdout line by line. */
function lineReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return async (): Promise<string> => {
    while (!buffer.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) return buffer;
      buffer += decoder.decode(value, { stream: true });
    }
    const i = buffer.indexOf('\n');
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    return line;
  };
}

describe('the packed @verity/sdk', () => {
  test.each([
    ['node', ['node', 'sign-in.mjs']],
    ['bun', [process.execPath, 'sign-in.mjs']],
    ['deno', [join(root, 'node_modules/.bin/deno'), 'run', '--allow-all', 'sign-in.mjs']],
  ])(
    'installs and signs a person in under %s',
    async (runtime, cmd) => {
      const child = Bun.spawn(cmd, {
        cwd: project,
        stdin: 'pipe',
        stdout: 'pipe',
        stderr: 'pipe',
        env: {
          ...process.env,
          VERITY_ISSUER: server.ctx.config.server.base_url,
          VERITY_CLIENT_ID: client.clientId,
          VERITY_CLIENT_SECRET: client.clientSecret!,
          VERITY_REDIRECT_URI: CALLBACK,
          // A new purpose per runtime, so each sign-in asks for consent.
          VERITY_PURPOSE: `Sign in from ${runtime}`,
        },
      });
      try {
        const next = lineReader(child.stdout);
        const first = await next();
        if (!first)
          throw new Error(`${runtime} printed nothing:\n${await new Response(child.stderr).text()}`);
        const { authorizationUrl } = JSON.parse(first) as { authorizationUrl: string };
        expect(authorizationUrl).toStartWith(`${server.ctx.config.server.base_url}/v1/oauth/authorize?`);
        const callback = await personaSignIn(authorizationUrl);
        expect(callback).toStartWith(`${CALLBACK}?code=`);
        child.stdin.write(`${callback}\n`);
        await child.stdin.end();

        const last = await next();
        expect(await child.exited, await new Response(child.stderr).text()).toBe(0);
        expect(JSON.parse(last)).toEqual({
          issuer: server.ctx.config.server.base_url,
          sub: expect.any(String),
          scopes: ['openid', 'email'],
          email: 'ada@sandbox.example',
          sameSubject: true,
          badToken: { oauthError: true, code: 'invalid_token', status: 401 },
        });
      } finally {
        child.kill();
      }
    },
    30_000,
  );

  test('its type declarations check in a strict TypeScript project that imports it by name', () => {
    // Each @ts-expect-error fails the check if a declaration did not resolve and became `any`.
    writeFileSync(
      join(project, 'check.ts'),
      `import { createVerityClient, memoryTransactionStore, OAuthResponseError, type UserInfo } from '@verity/sdk';
       import { signIn } from '@verity/sdk/browser';
       const verity = createVerityClient({ issuer: 'https://id.example', clientId: 'c', redirectUri: 'https://a.example/cb', store: memoryTransactionStore() });
       export const info: Promise<UserInfo> = verity.userinfo('at');
       export const status = (e: unknown): number | undefined => (e instanceof OAuthResponseError ? e.status : undefined);
       export const start = () => signIn({ transactionEndpoint: '/auth/transaction' });
       // @ts-expect-error the client has no such method
       verity.notAMethod();
       // @ts-expect-error a status is a number
       export const wrong = (e: OAuthResponseError): string => e.status;
       // @ts-expect-error signIn needs its transaction endpoint
       signIn({});\n`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        // skipLibCheck: checking valibot's own declarations takes half a minute.
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          lib: ['es2023', 'dom'],
          types: [],
          noEmit: true,
          skipLibCheck: true,
        },
        files: ['check.ts'],
      }),
    );
    run([join(root, 'node_modules/.bin/tsc'), '-p', '.'], project);
  }, 30_000);

  test("Verity's own package.json exports no TypeScript source, which Node cannot import", () => {
    const { exports = {} } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports?: Record<string, string>;
    };
    expect(Object.values(exports).filter((target) => /(?<!\.d)\.tsx?$/.test(target))).toEqual([]);
  });
});
