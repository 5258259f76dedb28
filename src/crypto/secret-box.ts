import { base64url, fromBase64url, utf8 } from './encoding.ts';

/**
 * Secrets that must be readable again (webhook signing secrets, a production client secret awaiting
 * its one reveal) cannot be hashed. They are sealed with AES-256-GCM under a key derived by HKDF from
 * instance key material and a purpose, with the owning row's id as associated data so a ciphertext
 * cannot be moved to another row. A copy of the database alone therefore reveals no such secret.
 */
export interface SecretBox {
  /** `v1.<iv>.<ciphertext>`, base64url. */
  seal(rowId: string, secret: string): Promise<string>;
  open(rowId: string, sealed: string): Promise<string>;
}

export function secretBox(material: () => Promise<string>, purpose: string): SecretBox {
  let key: Promise<CryptoKey> | undefined;
  const sealingKey = () => {
    if (!key) {
      key = (async () => {
        const hkdf = await crypto.subtle.importKey('raw', utf8(await material()), 'HKDF', false, [
          'deriveKey',
        ]);
        return crypto.subtle.deriveKey(
          { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: utf8(`verity ${purpose} v1`) },
          hkdf,
          { name: 'AES-GCM', length: 256 },
          false,
          ['encrypt', 'decrypt'],
        );
      })();
      // A failure (e.g. an unreadable keys directory) is not cached, so the next call tries again.
      key.catch(() => {
        key = undefined;
      });
    }
    return key;
  };
  return {
    async seal(rowId, secret) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const ct = await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: utf8(rowId) },
        await sealingKey(),
        utf8(secret),
      );
      return `v1.${base64url(iv)}.${base64url(new Uint8Array(ct))}`;
    },
    async open(rowId, sealed) {
      const [version, iv, ct] = sealed.split('.');
      if (version !== 'v1' || !iv || !ct) throw new Error(`unrecognised sealed ${purpose}`);
      const plain = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: fromBase64url(iv) as Uint8Array<ArrayBuffer>, additionalData: utf8(rowId) },
        await sealingKey(),
        fromBase64url(ct) as Uint8Array<ArrayBuffer>,
      );
      return new TextDecoder().decode(plain);
    },
  };
}
