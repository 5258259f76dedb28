import type { JWK } from 'jose';
import type { Config } from '../config/schema.ts';
import { cacheVersion } from '../db/cache-versions.ts';
import type { Db } from '../db/open.ts';
import { type Logger, silentLogger } from '../log.ts';
import { type Clock, unix } from '../platform/clock.ts';
import {
  createSigningPool,
  type PoolKey,
  type SigningPool,
  signingThreads,
} from '../platform/signing-pool.ts';
import { createKeyStore, type KeyStore } from './key.store.ts';
import { type KeyFiles, keyFiles } from './key-files.ts';

/** The active key: its kid, its private JWK (sent to the signing threads) and the key imported from it. */
export type SigningKey = PoolKey;

/**
 * The signing keys as the server uses them: the active private key for ID tokens, and a precomputed
 * JWKS body. Both are cached and reloaded when the signing_keys cache version moves, which any
 * writer's change to the key set does (another process's rotation included): one read per use.
 */
export class KeyService {
  readonly store: KeyStore;
  readonly files: KeyFiles;
  private signing?: SigningKey;
  private jwks?: { body: string; version: number };
  /** Key files never change under a kid (it is their thumbprint), so public parts are read once. */
  private publicByKid = new Map<string, JWK>();
  /** Started on the first signature: commands that never sign start no threads. */
  private pool?: SigningPool;

  constructor(
    readonly db: Db,
    readonly config: Config,
    readonly clock: Clock,
    private readonly log: Logger = silentLogger,
  ) {
    this.store = createKeyStore(db);
    this.files = keyFiles(config.keys.dir);
  }

  /** First start: make sure a key is active. Safe to call from several processes. */
  async ensureActive(): Promise<void> {
    if (this.store.active()) return;
    const now = unix(this.clock);
    const { kid } = await this.files.generate(this.config.keys.rsa_bits, now);
    const won = this.db.sql.transaction(() => {
      if (this.store.active()) return false;
      this.store.insert({
        kid,
        state: 'active',
        created_at: now,
        activated_at: now,
        retired_at: null,
        remove_after: null,
      });
      return true;
    });
    if (!won) await this.files.remove(kid);
    this.invalidate();
  }

  invalidate(): void {
    this.signing = undefined;
    this.jwks = undefined;
  }

  private async refresh(): Promise<void> {
    const version = cacheVersion(this.db, 'signing_keys');
    if (this.jwks?.version === version) return;
    const rows = this.store.list();
    const keys: JWK[] = [];
    for (const row of rows) {
      let jwk = this.publicByKid.get(row.kid);
      if (!jwk) {
        try {
          jwk = await this.files.loadPublic(row.kid);
        } catch (e) {
          // The active key's failure surfaces below when it is loaded to sign; another key is skipped.
          this.log.warn('signing key file unreadable; left out of the JWKS', {
            kid: row.kid,
            state: row.state,
            error: (e as Error).message,
          });
        }
        if (jwk) this.publicByKid.set(row.kid, jwk);
        else if (row.state !== 'active')
          this.log.warn('signing key file missing; left out of the JWKS', { kid: row.kid });
      }
      if (jwk) keys.push(jwk);
    }
    for (const kid of this.publicByKid.keys()) {
      if (!rows.some((r) => r.kid === kid)) this.publicByKid.delete(kid);
    }
    // Active first: clients that take the first key still find the one in use.
    keys.sort((a, b) => rank(rows, a.kid) - rank(rows, b.kid));
    const active = rows.find((r) => r.state === 'active');
    this.signing =
      active && active.kid !== this.signing?.kid
        ? { kid: active.kid, ...(await this.files.loadPrivate(active.kid)) }
        : active
          ? this.signing
          : undefined;
    this.jwks = { body: JSON.stringify({ keys }), version };
  }

  async signingKey(): Promise<SigningKey> {
    // Checked on every signature: a key another process retired or removed must not sign one more token.
    await this.refresh();
    if (!this.signing) throw new Error('no active signing key');
    return this.signing;
  }

  /**
   * RS256 over `input` with `key` (the one signingKey() returned), on one of `[server] signing_threads`
   * threads: the pool only ever signs with the key it is handed, so the check above still decides.
   */
  sign(key: SigningKey, input: string): Promise<string> {
    this.pool ??= createSigningPool({
      threads: signingThreads(this.config.server.signing_threads),
      onWorkerLost: (reason) =>
        this.log.warn('signing thread lost; its signatures in flight were made on the serving thread', {
          reason,
        }),
    });
    return this.pool.sign(key, input);
  }

  /** Ends the signing threads; a signature asked for later is made on the calling thread. */
  close(): void {
    this.pool?.close();
  }

  async jwksBody(): Promise<string> {
    await this.refresh();
    return this.jwks!.body;
  }

  hasActive(): boolean {
    return this.store.active() !== undefined;
  }
}

const ORDER = { active: 0, next: 1, retired: 2 } as const;
function rank(rows: { kid: string; state: keyof typeof ORDER }[], kid: string | undefined): number {
  const r = rows.find((x) => x.kid === kid);
  return r ? ORDER[r.state] : 3;
}
