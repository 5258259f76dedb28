import type { AppContext } from '../context.ts';
import { base64url, fromBase64url, utf8 } from '../crypto/encoding.ts';
import { instanceSecret } from '../keys/instance-secrets.ts';

/**
 * Signing secrets must be readable by the dispatcher (it signs with them), so unlike other
 * credentials they cannot be hashed. They are sealed with AES-256-GCM under a key derived from
 * `[webhooks] secret_key` (or a key generated once into the keys directory), with the secret row's id
 * as associated data so a ciphertext cannot be moved to another row. A copy of the database alone
 * therefore reveals no signing secret.
 */
const keys = new WeakMap<AppContext['config'], Promise<CryptoKey>>();

function sealingKey(ctx: Pick<AppContext, 'config'>): Promise<CryptoKey> {
  let key = keys.get(ctx.config);
  if (!key) {
    key = (async () => {
      const material = await instanceSecret(ctx.config, 'webhook-secrets', ctx.config.webhooks.secret_key);
      const hkdf = await crypto.subtle.importKey('raw', utf8(material), 'HKDF', false, ['deriveKey']);
      return crypto.subtle.deriveKey(
        { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: utf8('verity webhook secrets v1') },
        hkdf,
        { name: 'AES-GCM', length: 256 },
        false,
        ['encrypt', 'decrypt'],
      );
    })();
    // A failure (e.g. an unreadable keys directory) is not cached, so the next call tries again.
    key.catch(() => keys.delete(ctx.config));
    keys.set(ctx.config, key);
  }
  return key;
}

/** `v1.<iv>.<ciphertext>`, base64url. */
export async function sealSecret(
  ctx: Pick<AppContext, 'config'>,
  rowId: string,
  secret: string,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: utf8(rowId) },
    await sealingKey(ctx),
    utf8(secret),
  );
  return `v1.${base64url(iv)}.${base64url(new Uint8Array(ct))}`;
}

export async function openSecret(
  ctx: Pick<AppContext, 'config'>,
  rowId: string,
  sealed: string,
): Promise<string> {
  const [version, iv, ct] = sealed.split('.');
  if (version !== 'v1' || !iv || !ct) throw new Error('unrecognised sealed webhook secret');
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: fromBase64url(iv) as Uint8Array<ArrayBuffer>, additionalData: utf8(rowId) },
    await sealingKey(ctx),
    fromBase64url(ct) as Uint8Array<ArrayBuffer>,
  );
  return new TextDecoder().decode(plain);
}
