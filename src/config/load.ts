import { parse as parseToml, TomlError } from 'smol-toml';
import type { z } from '../zod.ts';
import { type Config, configSchema } from './schema.ts';
import { closest, holdsText, knownKeys } from './suggest.ts';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Where each key set from the environment came from: "server.listen" → "VERITY_SERVER_LISTEN". */
export type EnvSources = Map<string, string>;

/**
 * `VERITY_<SECTION>_<KEY>` overrides a top-level key of a section, so secrets need not sit in the file
 * (e.g. VERITY_OIDC_PAIRWISE_SECRET, VERITY_WEBHOOKS_SECRET_KEY). A key that holds text keeps the
 * value as it is; for any other, a value that looks like a number, a boolean or an array
 * (VERITY_SERVER_TRUSTED_PROXIES='["10.0.0.5"]') is parsed as TOML.
 */
export function applyEnv(
  raw: Record<string, unknown>,
  env: Record<string, string | undefined>,
  sources: EnvSources = new Map(),
): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(raw);
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('VERITY_') || value === undefined) continue;
    const rest = name.slice('VERITY_'.length).toLowerCase();
    const sections = Object.keys(configSchema.def.in.shape) as string[];
    const section = sections.find((s) => rest.startsWith(`${s}_`));
    if (!section) continue;
    const key = rest.slice(section.length + 1);
    const current = (out[section] ?? {}) as Record<string, unknown>;
    // A text key keeps the text: a password of digits only is not a number.
    current[key] = holdsText([section, key]) ? value : coerce(value);
    out[section] = current;
    sources.set(`${section}.${key}`, name);
  }
  return out;
}

function coerce(value: string): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^-?\d+$/.test(value)) return Number(value);
  if (value.startsWith('[')) {
    try {
      return parseToml(`v = ${value}`).v;
    } catch {
      // Left a string: the key's schema says what is wrong with it.
    }
  }
  return value;
}

const keyName = (path: readonly PropertyKey[]) => path.map(String).join('.') || '(root)';

/** One line per problem: the key (and the variable that set it), then what is wrong. */
export function formatIssues(issues: z.core.$ZodIssue[], sources: EnvSources = new Map()): string[] {
  const named = (path: readonly PropertyKey[]) => {
    const name = keyName(path);
    const variable = sources.get(name);
    return variable ? `${name} (from ${variable})` : name;
  };
  return issues.flatMap((i) => {
    if (i.code !== 'unrecognized_keys') return [`${named(i.path)}: ${i.message}`];
    const known = knownKeys(i.path);
    return i.keys.map((key) => {
      const guess = closest(key, known);
      const variable = sources.get(keyName([...i.path, key]));
      const hint = guess
        ? variable
          ? ` (did you mean VERITY_${[...i.path, guess].join('_').toUpperCase()}?)`
          : ` (did you mean "${guess}"?)`
        : '';
      return `${named([...i.path, key])}: unknown key${hint}`;
    });
  });
}

/** A TOML syntax error as FILE:LINE:COL, the message, and the offending line with a caret. */
function syntaxProblem(e: unknown, text: string, source: string): string {
  if (!(e instanceof TomlError)) return `${source}: TOML syntax: ${(e as Error).message.split('\n')[0]}`;
  const message = e.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
  const line = text.split(/\r?\n/)[e.line - 1] ?? '';
  return `${source}:${e.line}:${e.column}: TOML syntax: ${message}\n      ${line}\n      ${' '.repeat(Math.max(0, e.column - 1))}^`;
}

/**
 * Parses TOML text (plus environment overrides) into a validated Config, reporting every problem at
 * once. `source` names the file in syntax errors.
 */
export function parseConfig(
  text: string,
  env: Record<string, string | undefined> = {},
  source = 'config',
): Config {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new ConfigError([syntaxProblem(e, text, source)]);
  }
  const sources: EnvSources = new Map();
  const result = configSchema.safeParse(applyEnv(raw, env, sources));
  if (!result.success) throw new ConfigError(formatIssues(result.error.issues, sources));
  return result.data;
}
