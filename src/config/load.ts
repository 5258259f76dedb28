import { parse as parseToml } from 'smol-toml';
import type { z } from 'zod';
import { type Config, configSchema } from './schema.ts';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * `VERITY_<SECTION>_<KEY>` overrides a top-level key of a section, so secrets need not sit in the file
 * (e.g. VERITY_OIDC_PAIRWISE_SECRET, VERITY_WEBHOOKS_SECRET_KEY). Values are parsed as TOML scalars
 * when they look like one (numbers, booleans), otherwise kept as strings.
 */
export function applyEnv(
  raw: Record<string, unknown>,
  env: Record<string, string | undefined>,
): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(raw);
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('VERITY_') || value === undefined) continue;
    const rest = name.slice('VERITY_'.length).toLowerCase();
    const sections = Object.keys(configSchema.in.shape) as string[];
    const section = sections.find((s) => rest.startsWith(`${s}_`));
    if (!section) continue;
    const key = rest.slice(section.length + 1);
    const current = (out[section] ?? {}) as Record<string, unknown>;
    current[key] = coerce(value);
    out[section] = current;
  }
  return out;
}

function coerce(value: string): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^-?\d+$/.test(value)) return Number(value);
  return value;
}

export function formatIssues(issues: z.core.$ZodIssue[]): string[] {
  return issues.map((i) => {
    const path = i.path.join('.') || '(root)';
    if (i.code === 'unrecognized_keys') return `${[...i.path, ...i.keys].join('.')}: unknown key`;
    return `${path}: ${i.message}`;
  });
}

/** Parses TOML text (plus environment overrides) into a validated Config, reporting every problem at once. */
export function parseConfig(text: string, env: Record<string, string | undefined> = {}): Config {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new ConfigError([`TOML syntax: ${(e as Error).message.split('\n')[0]}`]);
  }
  const result = configSchema.safeParse(applyEnv(raw, env));
  if (!result.success) throw new ConfigError(formatIssues(result.error.issues));
  return result.data;
}
