import type { KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { files } from '../platform/files.ts';
import { importPrivateJwk } from '../platform/jws-sign.ts';
import { runtime } from '../platform/runtime.ts';
import type { SigningAlg } from './signing-algs.ts';

/** RS256 keys shorter than this are refused whatever the configuration says. */
export const MIN_RSA_BITS = 2048;

/** Private keys live as one JWK file each (0600) in a 0700 directory; the database holds their state. */
export interface KeyFiles {
  dir: string;
  /**
   * Writes a fresh key file for `alg` (RSA keys of `rsaBits`); `createdAt` (unix seconds) lets a sweep
   * tell a crashed write from a fresh one, and `database` (the writer's database id) its own from
   * another database's.
   */
  generate(
    alg: SigningAlg,
    createdAt: number,
    database: string,
    rsaBits?: number,
  ): Promise<{ kid: string; publicJwk: JWK }>;
  /**
   * The key's algorithm, its private JWK (for the signing threads) and the key imported for the signer
   * of its algorithm (RS256's native one included).
   */
  loadPrivate(kid: string): Promise<{ alg: SigningAlg; jwk: JWK; key: KeyObject }>;
  /** The whole JWK of a key file; undefined when the file is missing. */
  loadPrivateJwk(kid: string): Promise<JWK | undefined>;
  loadPublic(kid: string): Promise<JWK | undefined>;
  /** Every key file in the directory, with the time it was written (0 when unknown) and by which database. */
  list(): Promise<{ kid: string; createdAt: number; database?: string }[]>;
  remove(kid: string): Promise<void>;
  /**
   * Temporary files of atomic key writes (`<kid>.jwk.json.<uuid>.tmp`) still in the directory, with
   * their modification time (unix seconds): either a write in progress or one a crash never renamed.
   */
  listTemporary(): Promise<{ name: string; modifiedAt: number }[]>;
  /** Deletes one such temporary file; any other name is refused. */
  removeTemporary(name: string): Promise<void>;
}

const SUFFIX = '.jwk.json';
const pathOf = (dir: string, kid: string) => files.join(dir, `${kid}${SUFFIX}`);
/**
 * The exact name `files.writePrivateAtomic` gives a key file (a base64url kid) or an instance secret
 * before renaming it, with its random UUID. Both hold secret material. Nothing else matches: not whole
 * key files, not the secrets themselves.
 */
const TEMPORARY =
  /^(?:[A-Za-z0-9_-]+\.jwk\.json|pairwise\.secret|webhook-secrets\.secret)\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;
export const isTemporaryKeyFile = (name: string) => TEMPORARY.test(name);

export function keyFiles(dir: string): KeyFiles {
  return {
    dir,
    async generate(alg, createdAt, database, rsaBits = MIN_RSA_BITS) {
      if (alg === 'RS256' && (!Number.isInteger(rsaBits) || rsaBits < MIN_RSA_BITS)) {
        throw new Error(`RSA keys must have at least ${MIN_RSA_BITS} bits (asked for ${rsaBits})`);
      }
      await files.ensurePrivateDir(dir);
      const { privateKey } = await generateKeyPair(alg, {
        extractable: true,
        ...(alg === 'RS256' ? { modulusLength: rsaBits } : alg === 'EdDSA' ? { crv: 'Ed25519' } : {}),
      });
      const jwk = await exportJWK(privateKey);
      const kid = await calculateJwkThumbprint(jwk);
      // Written atomically (temporary name, then rename): the file is either whole or absent.
      await files.writePrivateAtomic(
        pathOf(dir, kid),
        JSON.stringify({ ...jwk, kid, alg, use: 'sig', created_at: createdAt, database }),
      );
      return { kid, publicJwk: publicPart({ ...jwk, kid, alg }) };
    },
    async loadPrivate(kid) {
      const jwk = await this.loadPrivateJwk(kid);
      if (!jwk) throw new Error(`signing key file for ${kid} is missing from ${dir}`);
      // Files written before there were several algorithms are RSA keys marked RS256 all the same.
      const alg = jwk.alg as SigningAlg;
      return { alg, jwk, key: alg === 'RS256' ? runtime.importRsaPrivateJwk(jwk) : importPrivateJwk(jwk) };
    },
    async loadPrivateJwk(kid) {
      const text = await files.readText(pathOf(dir, kid));
      if (!text) return undefined;
      const {
        created_at: _,
        database: __,
        ...jwk
      } = JSON.parse(text) as JWK & {
        created_at?: number;
        database?: string;
      };
      return jwk;
    },
    async loadPublic(kid) {
      const text = await files.readText(pathOf(dir, kid));
      return text ? publicPart(JSON.parse(text)) : undefined;
    },
    async list() {
      const out: { kid: string; createdAt: number; database?: string }[] = [];
      for (const name of await files.list(dir)) {
        // Only whole key files: instance secrets and in-flight temporary files share the directory.
        if (!name.endsWith(SUFFIX)) continue;
        const kid = name.slice(0, -SUFFIX.length);
        let createdAt = 0;
        let database: string | undefined;
        try {
          const parsed = JSON.parse((await files.readText(pathOf(dir, kid))) ?? '{}') as {
            created_at?: unknown;
            database?: unknown;
          };
          if (typeof parsed.created_at === 'number') createdAt = parsed.created_at;
          if (typeof parsed.database === 'string') database = parsed.database;
        } catch {
          // Unreadable content counts as old: such a file can never become a published key.
        }
        out.push({ kid, createdAt, database });
      }
      return out;
    },
    remove: (kid) => files.remove(pathOf(dir, kid)),
    async listTemporary() {
      const out: { name: string; modifiedAt: number }[] = [];
      for (const name of await files.list(dir)) {
        if (!isTemporaryKeyFile(name)) continue;
        // Gone meanwhile (renamed by its writer) or not a regular file: nothing to sweep.
        const ms = await files.modifiedAt(files.join(dir, name));
        if (ms !== undefined) out.push({ name, modifiedAt: Math.floor(ms / 1000) });
      }
      return out;
    },
    async removeTemporary(name) {
      if (!isTemporaryKeyFile(name)) throw new Error(`not a temporary key file: ${name}`);
      await files.remove(files.join(dir, name));
    },
  };
}

/** Only the public members of each key type (RFC 7518 §6, RFC 8037 §2) ever leave this module. */
function publicPart(jwk: JWK): JWK {
  const common = { kty: jwk.kty, kid: jwk.kid, use: 'sig', alg: jwk.alg };
  if (jwk.kty === 'RSA') return { ...common, n: jwk.n, e: jwk.e };
  if (jwk.kty === 'EC') return { ...common, crv: jwk.crv, x: jwk.x, y: jwk.y };
  if (jwk.kty === 'OKP') return { ...common, crv: jwk.crv, x: jwk.x };
  throw new Error(`unsupported signing key type ${jwk.kty}`);
}
