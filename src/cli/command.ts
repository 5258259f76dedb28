import type { Config } from '../config/schema.ts';
import type { AppContext } from '../context.ts';
import { type Environment, isEnvironment } from '../environment.ts';

export type OptionSpec = Record<
  string,
  {
    type: 'string' | 'boolean';
    multiple?: boolean;
    short?: string /** One line for --help. */;
    description: string;
  }
>;

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export interface CliContext {
  json: boolean;
  configPath: string;
  loadConfig(): Promise<Config>;
  /** The config and the file it was read from (none when only the defaults apply). */
  readConfig(): Promise<{ config: Config; file?: string }>;
  /** Opens the database (refusing a schema with pending migrations) and the key service. */
  open(opts?: { migrate?: boolean }): Promise<AppContext>;
  /** Prints the human text, or the JSON value with --json. */
  print(human: string, json: unknown): void;
}

export interface Command {
  /** Words after `verity`, e.g. "apps create". */
  name: string;
  summary: string;
  /** Shown by --help after the name, e.g. "APP_ID --env sandbox|production". */
  usage?: string;
  options?: OptionSpec;
  /** Returns the exit code (0 when omitted). */
  run(cli: CliContext, args: ParsedArgs): Promise<number | undefined> | number | undefined;
}

/** Wrong words on the command line: exit code 2. */
export class UsageError extends Error {}

export const str = (args: ParsedArgs, name: string): string | undefined => {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
};
export const list = (args: ParsedArgs, name: string): string[] => {
  const v = args.values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
};
export function required(args: ParsedArgs, name: string): string {
  const v = str(args, name);
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
  return v;
}
export function positional(args: ParsedArgs, index: number, label: string): string {
  const v = args.positionals[index];
  if (!v) throw new UsageError(`${label} is required`);
  return v;
}

/** Opens the database for one command and closes it however the command ends. */
export async function withContext<T>(cli: CliContext, fn: (ctx: AppContext) => Promise<T> | T): Promise<T> {
  const ctx = await cli.open();
  try {
    return await fn(ctx);
  } finally {
    ctx.db.close();
  }
}

/** `--env` when given, checked to be an environment. */
export function environmentOption(args: ParsedArgs): Environment | undefined {
  const env = str(args, 'env');
  if (env !== undefined && !isEnvironment(env))
    throw new UsageError(`--env must be "sandbox" or "production", not "${env}"`);
  return env;
}

/** `--env`, or `fallback` when absent; without a fallback it is required. */
export function requiredEnvironment(args: ParsedArgs, fallback?: Environment): Environment {
  const env = environmentOption(args) ?? fallback;
  if (env === undefined) throw new UsageError('--env is required (sandbox or production)');
  return env;
}

/**
 * Text for the terminal with its control characters escaped (newlines kept when asked): no input (quoted
 * in an error, or imported data) can forge a line or send the terminal an escape sequence.
 */
export function printable(text: string, keepNewlines = false): string {
  return text.replace(
    keepNewlines ? /[^\P{Cc}\n]/gu : /\p{Cc}/gu,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
