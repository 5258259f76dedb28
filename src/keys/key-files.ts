import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { files } from '../platform/files.ts';

/** Private keys live as one JWK file each (0600) in a 0700 directory; the database holds their state. */
export interface KeyFiles {
  dir: string;
  generate(bits: number): Promise<{ kid: string; publicJwk: JWK }>;
  loadPrivate(kid: string): Promise<CryptoKey>;
  loadPublic(kid: string): Promise<JWK | undefined>;
  remove(kid: string): Promise<void>;
}

const pathOf = (dir: string, kid: string) => files.join(dir, `${kid}.jwk.json`);

export function keyFiles(dir: string): KeyFiles {
  return {
    dir,
    async generate(bits) {
      await files.ensurePrivateDir(dir);
      const { privateKey } = await generateKeyPair('RS256', { modulusLength: bits, extractable: true });
      const jwk = await exportJWK(privateKey);
      const kid = await calculateJwkThumbprint(jwk);
      await files.writePrivateAtomic(
        pathOf(dir, kid),
        JSON.stringify({ ...jwk, kid, alg: 'RS256', use: 'sig' }),
      );
      return { kid, publicJwk: publicPart({ ...jwk, kid }) };
    },
    async loadPrivate(kid) {
      const text = await files.readText(pathOf(dir, kid));
      if (!text) throw new Error(`signing key file for ${kid} is missing from ${dir}`);
      return (await importJWK(JSON.parse(text), 'RS256')) as CryptoKey;
    },
    async loadPublic(kid) {
      const text = await files.readText(pathOf(dir, kid));
      return text ? publicPart(JSON.parse(text)) : undefined;
    },
    remove: (kid) => files.remove(pathOf(dir, kid)),
  };
}

function publicPart(jwk: JWK): JWK {
  return { kty: 'RSA', kid: jwk.kid, use: 'sig', alg: 'RS256', n: jwk.n, e: jwk.e };
}
