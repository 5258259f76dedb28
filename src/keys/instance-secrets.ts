import type { Config } from '../config/schema.ts';
import { type SecretBox, secretBox } from '../crypto/secret-box.ts';
import { randomToken } from '../crypto/tokens.ts';
import { files } from '../platform/files.ts';
import type { InstanceSecretName } from './instance-check.store.ts';

export const instanceSecretFile = (dir: string, name: InstanceSecretName) =>
  files.join(dir, `${name}.secret`);

export async function readInstanceSecret(dir: string, name: InstanceSecretName): Promise<string | undefined> {
  return (await files.readText(instanceSecretFile(dir, name)))?.trim() || undefined;
}

/**
 * Writes a fresh secret (0600) unless the file exists; returns the file's content either way, so two
 * processes starting at once end up with the same secret. Only a start on an unused database calls this.
 */
export async function generateInstanceSecret(dir: string, name: InstanceSecretName): Promise<string> {
  await files.ensurePrivateDir(dir);
  await files.writePrivateOnce(instanceSecretFile(dir, name), randomToken('', 32));
  return (await readInstanceSecret(dir, name))!;
}

/**
 * Instance-wide secrets that must survive restarts and key rotations: from the config (or its VERITY_*
 * variable) when set, otherwise from the keys directory, where the start (`bindKeyMaterial`) generated
 * it for a new database and checked it against the database ever since.
 */
export async function instanceSecret(
  config: Config,
  name: InstanceSecretName,
  configured: string,
): Promise<string> {
  if (configured) return configured;
  const secret = await readInstanceSecret(config.keys.dir, name);
  if (!secret) throw new Error(`${instanceSecretFile(config.keys.dir, name)} is missing`);
  return secret;
}

export type SealedPurpose = 'webhook secrets' | 'client secrets' | 'portal results';
// Keyed by the context's own Config; the key file never changes once written, so this memo stays.
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
