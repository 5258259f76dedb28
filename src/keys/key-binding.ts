import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Config } from '../config/schema.ts';
import { hmacSha256Hex } from '../crypto/digest.ts';
import type { Db } from '../db/open.ts';
import type { Logger } from '../log.ts';
import { type Clock, unix } from '../platform/clock.ts';
import { files } from '../platform/files.ts';
import { createInstanceCheckStore, type InstanceSecretName } from './instance-check.store.ts';
import { generateInstanceSecret, instanceSecretFile, readInstanceSecret } from './instance-secrets.ts';
import { createKeyStore } from './key.store.ts';
import { keyFiles } from './key-files.ts';

/** Where an operator reads how to put a database and its keys back together. */
export const RESTORE_DOC = 'docs/backup.md#restoring';

export const INSTANCE_SECRETS: Record<
  InstanceSecretName,
  { label: string; configKey: string; variable: string; configured(c: Config): string }
> = {
  pairwise: {
    label: 'pairwise secret (every `sub` an application sees depends on it)',
    configKey: '[oidc] pairwise_secret',
    variable: 'VERITY_OIDC_PAIRWISE_SECRET',
    configured: (c) => c.oidc.pairwise_secret,
  },
  'webhook-secrets': {
    label: 'webhook secret key (the stored webhook signing secrets are sealed with it)',
    configKey: '[webhooks] secret_key',
    variable: 'VERITY_WEBHOOKS_SECRET_KEY',
    configured: (c) => c.webhooks.secret_key,
  },
};
const NAMES = Object.keys(INSTANCE_SECRETS) as InstanceSecretName[];

/** The check value recorded for a secret: proves which secret is in use without revealing it. */
export const secretCheck = (name: InstanceSecretName, secret: string) =>
  hmacSha256Hex(secret, `verity-instance-check:${name}`);

/** The key material a database is checked against: the live keys directory, or a backup's copy of it. */
export interface KeyMaterial {
  dir: string;
  config: Config;
  /** The file's content of an instance secret; undefined when the file is missing. */
  secretFile(name: InstanceSecretName): Promise<string | undefined>;
  /** The JWK in a signing key file; undefined when missing; throws when unreadable. */
  signingKey(kid: string): Promise<JWK | undefined>;
}

export function keyMaterialOnDisk(config: Config): KeyMaterial {
  const keys = keyFiles(config.keys.dir);
  return {
    dir: config.keys.dir,
    config,
    secretFile: (name) => readInstanceSecret(config.keys.dir, name),
    signingKey: (kid) => keys.loadPrivateJwk(kid),
  };
}

export interface BindingReport {
  /** Each one refuses a start: the material is missing or is not the one the database was written with. */
  problems: string[];
  /** Logged only: a retired key whose file is gone or unreadable (it is skipped from the JWKS). */
  warnings: string[];
  /** The secrets in use (configured or from their file), by name; absent when neither exists. */
  secrets: Map<InstanceSecretName, string>;
  /** Check values already recorded in the database. */
  recorded: Map<InstanceSecretName, string>;
  /** Whether the database holds anything the secrets were used for (see the store's `inUse`). */
  inUse: boolean;
}

/**
 * Read-only: does `material` belong to `db`? A secret must match its recorded check; with no check
 * recorded (a database from before checks existed) it must exist whenever the database is in use. An
 * active or next signing key's file, of every algorithm, must hold the key its kid (an RFC 7638
 * thumbprint) names, for the algorithm its row records.
 */
export async function verifyKeyBinding(db: Db, material: KeyMaterial): Promise<BindingReport> {
  const checks = createInstanceCheckStore(db);
  const recorded = checks.all();
  const inUse = checks.inUse();
  const report: BindingReport = { problems: [], warnings: [], secrets: new Map(), recorded, inUse };
  for (const name of NAMES) {
    const spec = INSTANCE_SECRETS[name];
    const file = instanceSecretFile(material.dir, name);
    const configured = spec.configured(material.config);
    let value: string | undefined = configured || undefined;
    if (!value) {
      try {
        value = await material.secretFile(name);
      } catch (e) {
        report.problems.push(`${spec.label}: ${file} cannot be read (${(e as Error).message})`);
        continue;
      }
    }
    const source = configured ? `${spec.configKey} / ${spec.variable}` : file;
    if (value === undefined) {
      if (recorded.has(name) || inUse)
        report.problems.push(
          `${spec.label}: missing: there is no ${file}, and neither ${spec.configKey} nor ${spec.variable} is set`,
        );
      continue;
    }
    report.secrets.set(name, value);
    const check = recorded.get(name);
    if (check !== undefined && check !== secretCheck(name, value))
      report.problems.push(
        `${spec.label}: the one from ${source} is not the one this database was written with` +
          (configured ? '' : ` (or set ${spec.configKey} / ${spec.variable} to the original)`),
      );
  }
  for (const row of createKeyStore(db).list()) {
    const path = files.join(material.dir, `${row.kid}.jwk.json`);
    // Read before migrating: a database from before the column (migration 0012) holds RS256 keys only.
    const alg = (row.alg as string | undefined) ?? 'RS256';
    let problem: string | undefined;
    try {
      const jwk = await material.signingKey(row.kid);
      if (!jwk) problem = `${path} is missing`;
      else if ((await calculateJwkThumbprint(jwk)) !== row.kid) problem = `${path} holds a different key`;
      else if (jwk.alg !== alg) problem = `${path} holds an ${jwk.alg} key, not an ${alg} one`;
    } catch (e) {
      problem = `${path} cannot be read (${(e as Error).message})`;
    }
    if (!problem) continue;
    const line = `signing key ${row.kid} (${row.state}): ${problem}`;
    // A retired key only verifies tokens that are expiring anyway; the others sign or are about to.
    (row.state === 'retired' ? report.warnings : report.problems).push(line);
  }
  return report;
}

export class KeyBindingError extends Error {}

export function bindingMessage(dir: string, problems: string[]): string {
  return [
    `the key material in ${dir} does not belong to this database:`,
    ...problems.map((p) => `  - ${p}`),
    `Restore the keys directory (and the config's secrets) from the same backup as the database; see ${RESTORE_DOC}.`,
  ].join('\n');
}

/**
 * At every start, before anything signs or derives a `sub`: refuses (KeyBindingError) when the key
 * material does not belong to the database; otherwise generates the instance secrets an unused database
 * lacks and records the check values not yet recorded, so the next start can verify them.
 */
export async function bindKeyMaterial(
  deps: { db: Db; config: Config; clock: Clock; log: Logger },
  material: KeyMaterial = keyMaterialOnDisk(deps.config),
): Promise<void> {
  const report = await verifyKeyBinding(deps.db, material);
  if (report.problems.length) throw new KeyBindingError(bindingMessage(material.dir, report.problems));
  for (const w of report.warnings) deps.log.warn('retired signing key skipped', { problem: w });
  const toRecord = new Map<InstanceSecretName, string>();
  for (const name of NAMES) {
    // Missing here means the database is unused: verifyKeyBinding refused every other case.
    const value = report.secrets.get(name) ?? (await generateInstanceSecret(material.dir, name));
    if (!report.recorded.has(name)) toRecord.set(name, secretCheck(name, value));
  }
  if (!toRecord.size) return;
  // All at once: a start interrupted halfway leaves no check that would make the database look used.
  createInstanceCheckStore(deps.db).record(toRecord, unix(deps.clock));
  // A concurrent first start may have recorded its own checks first.
  const after = await verifyKeyBinding(deps.db, material);
  if (after.problems.length) throw new KeyBindingError(bindingMessage(material.dir, after.problems));
}
