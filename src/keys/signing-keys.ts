import type { JWK } from 'jose';
import type { Config } from '../config/schema.ts';
import { cacheVersion } from '../db/cache-versions.ts';
import type { Db } from '../db/open.ts';
import { type Logger, silentLogger } from '../log.ts';
import { type Clock, unix } from '../platform/clock.ts';
import { signEd25519, signEs256 } from '../platform/jws-sign.ts';
import { runtime } from '../platform/runtime.ts';
import {
  createSigningPool,
  type PoolKey,
  type SigningPool,
  signingThreads,
} from '../platform/signing-pool.ts';
import { createInstanceCheckStore } from './instance-check.store.ts';
import { createKeyStore, type KeyRow, type KeyStore } from './key.store.ts';
import { type KeyFiles, keyFiles } from './key-files.ts';
import { DEFAULT_SIGNING_ALG, SIGNING_ALGS, type SigningAlg } from './signing-algs.ts';

/** How soon a key file that could not be read is tried again (a shared volume's hiccup, EMFILE). */
const UNREAD_KEY_RETRY_SECONDS = 1;

/**
 * An active key: its kid, its algorithm, its private JWK (sent to the signing threads) and the key
 * imported from it.
 */
export type SigningKey = PoolKey & { alg: SigningAlg };

/** Seconds: the longest a token or document proof signed under `config` may live. */
export const signingLifetime = (config: Config) =>
  Math.ceil(Math.max(config.oauth.token_ttl, config.assurance.proof_ttl) / 1000);

/**
 * The signing keys as the server uses them: the active private key of each algorithm for ID tokens,
 * and a precomputed JWKS body. Both are cached and reloaded when the signing_keys cache version moves,
 * which any writer's change to the key set does (another process's rotation included): one read per use.
 */
export class KeyService {
  readonly store: KeyStore;
  readonly files: KeyFiles;
  private signing = new Map<SigningAlg, SigningKey>();
  /**
   * The JWKS as last built for a key-set version; `retryAt` (unix seconds) when a key that is not
   * retired could not be read then: it is read again from that time, not only at the next change.
   */
  private jwks?: { body: string; version: number; retryAt?: number };
  /** Key files never change under a kid (it is their thumbprint), so public parts are read once. */
  private publicByKid = new Map<string, JWK>();
  /** Started on the first signature: commands that never sign start no threads. */
  private pool?: SigningPool;
  private ownId?: string;

  constructor(
    readonly db: Db,
    readonly config: Config,
    readonly clock: Clock,
    private readonly log: Logger = silentLogger,
  ) {
    this.store = createKeyStore(db);
    this.files = keyFiles(config.keys.dir);
  }

  /**
   * Makes sure a key of every algorithm is active: on first start, and on the first start after an
   * upgrade that added an algorithm (no client can have chosen it yet, so it needs no publication
   * ahead). Records this configuration's lifetimes on the keys that can sign, so a retired key stays
   * published as long as the longest of them (see rotation.ts). Safe to call from several processes.
   */
  async ensureActive(): Promise<void> {
    const missing = SIGNING_ALGS.filter((alg) => !this.store.active(alg));
    if (missing.length) await this.activate(missing);
    this.store.raiseLifetimes(signingLifetime(this.config));
  }

  private async activate(missing: SigningAlg[]): Promise<void> {
    const now = unix(this.clock);
    for (const alg of missing) {
      const { kid } = await this.files.generate(alg, now, this.databaseId(), this.config.keys.rsa_bits);
      const won = this.db.sql.transaction(() => {
        if (this.store.active(alg)) return false;
        this.store.insert({
          kid,
          alg,
          state: 'active',
          created_at: now,
          activated_at: now,
          retired_at: null,
          remove_after: null,
          longest_lifetime: signingLifetime(this.config),
        });
        return true;
      });
      if (!won) await this.files.remove(kid);
    }
    this.invalidate();
  }

  /** This database's id, which its key files carry (see the sweep in rotation.ts). */
  databaseId(): string {
    this.ownId ??= createInstanceCheckStore(this.db).databaseId(unix(this.clock));
    return this.ownId;
  }

  invalidate(): void {
    this.signing.clear();
    this.jwks = undefined;
  }

  /** Whether the JWKS as built serves for the key set as it is now. */
  private current(): boolean {
    const j = this.jwks;
    return (
      j?.version === cacheVersion(this.db, 'signing_keys') &&
      (j.retryAt === undefined || unix(this.clock) < j.retryAt)
    );
  }

  private async refresh(): Promise<void> {
    if (this.current()) return;
    const version = cacheVersion(this.db, 'signing_keys');
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
    // Active first, RS256 first among them: clients that take the first key still find the one in use.
    keys.sort((a, b) => rank(rows, a.kid) - rank(rows, b.kid));
    const signing = new Map<SigningAlg, SigningKey>();
    for (const active of rows.filter((r) => r.state === 'active')) {
      const held = this.signing.get(active.alg);
      if (held?.kid === active.kid) signing.set(active.alg, held);
      else {
        const loaded = await this.files.loadPrivate(active.kid);
        if (loaded.alg !== active.alg)
          throw new Error(`signing key file for ${active.kid} holds an ${loaded.alg} key`);
        signing.set(active.alg, { kid: active.kid, ...loaded });
      }
    }
    this.signing = signing;
    // A next key left out for a failed read must not stay out until its promotion.
    const unread = rows.some((r) => r.state !== 'retired' && !this.publicByKid.has(r.kid));
    this.jwks = {
      body: JSON.stringify({ keys }),
      version,
      ...(unread ? { retryAt: unix(this.clock) + UNREAD_KEY_RETRY_SECONDS } : {}),
    };
  }

  async signingKey(alg: SigningAlg = DEFAULT_SIGNING_ALG): Promise<SigningKey> {
    // Checked on every signature: a key another process retired or removed must not sign one more token.
    await this.refresh();
    const key = this.signing.get(alg);
    if (!key) throw new Error(`no active ${alg} signing key`);
    return key;
  }

  /**
   * The signature over `input` with `key` (the one signingKey() returned), base64url. RS256 is made on
   * one of `[server] signing_threads` threads: the pool only ever signs with the key it is handed, so
   * the check above still decides. ES256 and EdDSA cost a few percent of it: made here, synchronously,
   * a thread hop would cost more than they do.
   */
  async sign(key: SigningKey, input: string): Promise<string> {
    if (key.alg === 'ES256') return signEs256(key.key, input);
    if (key.alg === 'EdDSA') return signEd25519(key.key, input);
    if (!this.pool) this.log.info('RS256 signer', { provider: runtime.rs256Provider });
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

  /** The JWKS as served; without a promise while the key set is unchanged (every request but one). */
  jwksBody(): string | Promise<string> {
    if (this.current()) return this.jwks!.body;
    return this.refresh().then(() => this.jwks!.body);
  }

  /** Whether every algorithm has an active key (any client can then be issued an ID token). */
  hasActive(): boolean {
    return this.store.actives().length === SIGNING_ALGS.length;
  }
}

const ORDER = { active: 0, next: 1, retired: 2 } as const;
function rank(rows: KeyRow[], kid: string | undefined): number {
  const r = rows.find((x) => x.kid === kid);
  return r ? ORDER[r.state] * SIGNING_ALGS.length + SIGNING_ALGS.indexOf(r.alg) : 99;
}
