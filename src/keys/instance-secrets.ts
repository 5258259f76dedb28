import type { Config } from '../config/schema.ts';
import { type SecretBox, secretBox } from '../crypto/secret-box.ts';
import { randomToken } from '../crypto/tokens.ts';
import { files } from '../platform/files.ts';

/**
 * Instance-wide secrets that must survive restarts and key rotations: from the config (or its
 * VERITY_* variable) when set, otherwise generated once into the keys directory (0600).
 */
export async function instanceSecret(
  config: Config,
  name: 'pairwise' | 'webhook-secrets',
  configured: string,
): Promise<string> {
  if (configured) return configured;
  const path = files.join(config.keys.dir, `${name}.secret`);
  const existing = await files.readText(path);
  if (existing?.trim()) return existing.trim();
  await files.ensurePrivateDir(config.keys.dir);
  const fresh = randomToken('', 32);
  await files.writePrivateAtomic(path, fresh);
  // Another process may have won the race: the file on disk is the truth.
  return (await files.readText(path))!.trim();
}

export type SealedPurpose = 'webhook secrets' | 'client secrets';
const boxes = new WeakMap<Config, Map<SealedPurpose, SecretBox>>();

/**
 * The instance's secret box for one purpose, keyed by `[webhooks] secret_key` (or the key generated
 * once into the keys directory); each purpose derives its own key.
 */
export function sealedSecrets(config: Config, purpose: SealedPurpose): SecretBox {
  const perConfig = boxes.get(config) ?? new Map<SealedPurpose, SecretBox>();
  boxes.set(config, perConfig);
  let box = perConfig.get(purpose);
  if (!box) {
    box = secretBox(() => instanceSecret(config, 'webhook-secrets', config.webhooks.secret_key), purpose);
    perConfig.set(purpose, box);
  }
  return box;
}
