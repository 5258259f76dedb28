/** Builds node-oidc-provider's benchmark server for Node, starts it on the server's core, mints its codes. */
import { join } from 'node:path';
import { codeExchanges, type HttpRequest, type MintedCode } from '../load.ts';
import { pin, procKb, waitReady } from '../processes.ts';
import { CLIENT } from './client.ts';

export interface OidcProvider {
  base: string;
  pid: number;
  kill(): void;
  mint(n: number): Promise<MintedCode[]>;
  exchanges(codes: MintedCode[]): () => HttpRequest | undefined;
  /** node:crypto's sequential RS256 rate inside the provider's process. */
  sign(ms: number): Promise<number>;
  idleKb?: number;
}

export async function startOidcProvider(root: string, dir: string, port: number): Promise<OidcProvider> {
  const outdir = join(root, 'dist', 'bench');
  // Node runs JavaScript: the server is bundled, with the provider and the native driver left to node_modules.
  const built = await Bun.build({
    entrypoints: [join(import.meta.dir, 'server.ts')],
    outdir,
    target: 'node',
    format: 'esm',
    naming: 'oidc-provider.mjs',
    external: ['oidc-provider', 'better-sqlite3'],
  });
  if (!built.success) throw new Error(built.logs.join('\n'));
  const child = Bun.spawn(
    [...pin, 'node', join(outdir, 'oidc-provider.mjs'), join(dir, 'oidc-provider.db'), String(port)],
    { stdout: 'ignore', stderr: 'inherit' },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${base}/.well-known/openid-configuration`);
  await Bun.sleep(1000);
  const get = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${base}${path}`, init);
    if (!res.ok) throw new Error(`node-oidc-provider ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  return {
    base,
    pid: child.pid,
    idleKb: procKb(child.pid, 'VmRSS'),
    kill: () => child.kill(),
    mint: async (n) => (await get(`/bench/mint?n=${n}`, { method: 'POST' })) as MintedCode[],
    exchanges: (codes) =>
      codeExchanges(
        `${base}/token`,
        { id: CLIENT.client_id, secret: CLIENT.client_secret, redirectUri: CLIENT.redirect_uri },
        codes,
      ),
    sign: async (ms) => ((await get(`/bench/sign?ms=${ms}`)) as { signsPerSecond: number }).signsPerSecond,
  };
}
