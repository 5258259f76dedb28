import { createContext } from '../bootstrap.ts';
import { loadConfigFile } from '../config/file.ts';
import { ConfigError } from '../config/load.ts';
import { pendingMigrations } from '../db/migrate.ts';
import { databaseTarget, openDb } from '../db/open.ts';
import { ValidationError } from '../errors.ts';
import { jsonLogger, type Logger, silentLogger } from '../log.ts';
import { parseArgs } from '../platform/args.ts';
import { proc } from '../platform/process.ts';
import { VERSION } from '../version.ts';
import { type CliContext, type Command, type OptionSpec, printable, UsageError } from './command.ts';
import { commands } from './commands.ts';
import { explainSystemError } from './system-errors.ts';

/**
 * A command prints its own result; of the log it keeps the security events (a review approved or
 * rejected, …), as JSON lines on stderr, so they reach the operator's log like the server's do.
 */
const securityLines = jsonLogger('info', (line) => proc.stderr(`${line}\n`));
const cliLog: Logger = {
  ...silentLogger,
  info: (msg, fields) => {
    if (msg === 'security event') securityLines.info(msg, fields);
  },
};

const GLOBAL = {
  config: { type: 'string', description: 'the configuration file (default ./verity.toml)' },
  json: { type: 'boolean', description: 'machine-readable output on stdout' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
} as const;

/** Flags that take a value in some command: the token after them is a value, not a command word. */
const VALUE_FLAGS = new Set(
  [GLOBAL, ...commands.map((c) => c.options ?? {})].flatMap((spec) =>
    Object.entries(spec)
      .filter(([, o]) => o.type === 'string')
      .map(([name]) => `--${name}`),
  ),
);

function findCommand(argv: string[]): { command?: Command; rest: string[]; prefix: string[] } {
  const wordAt: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (VALUE_FLAGS.has(a)) i++;
    else if (!a.startsWith('-')) wordAt.push(i);
  }
  const words = wordAt.map((i) => argv[i]!);
  // Longest name first: "apps secret rotate" before "apps".
  for (let n = Math.min(3, words.length); n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    const command = commands.find((c) => c.name === name);
    if (command) {
      const taken = new Set(wordAt.slice(0, n));
      return { command, rest: argv.filter((_, i) => !taken.has(i)), prefix: words.slice(0, n) };
    }
  }
  return { rest: argv, prefix: words.slice(0, 2) };
}

/**
 * The arguments with every operand after `--`, in order. Operands may start with "-": a key id is a
 * base64url thumbprint, and one in 64 begins with a dash, which parseArgs would take for an unknown
 * short option. Only `--name` options (a misspelt one is still refused), `-h` and the value after a
 * value flag stay options; anything after a `--` the caller wrote is an operand already.
 */
function operandsLast(args: string[]): string[] {
  const options: string[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--') || a === '-h') {
      options.push(a);
      if (VALUE_FLAGS.has(a) && i + 1 < args.length) options.push(args[++i]!);
    } else operands.push(a);
  }
  return [...options, '--', ...operands];
}

/**
 * How many operands a command takes: the upper-case words its usage starts with ("APP_ID --yes" one,
 * "COUNTRY DOCUMENT_TYPE …" two, "[--status …]" none). Any more is a mistake, not something to ignore:
 * `apps delete A B` must not delete A and say nothing of B.
 */
const operandCount = (c: Command): number => {
  let n = 0;
  for (const word of (c.usage ?? '').split(' ')) {
    if (!/^[A-Z][A-Z_]*$/.test(word)) break;
    n++;
  }
  return n;
};

/** One line per flag: its name (and value), then what it does. */
function flagRows(spec: OptionSpec): string[] {
  return Object.entries(spec).map(([k, v]) => {
    const flag = `--${k}${v.type === 'string' ? (k === 'config' ? ' FILE' : ' VALUE') : ''}`;
    return `  ${flag.padEnd(30)} ${v.description}${v.multiple ? ' (repeatable)' : ''}`;
  });
}

function help(prefix: string[]): string {
  const shown = commands.filter((c) => prefix.length === 0 || c.name.startsWith(prefix.join(' ')));
  const rows = (shown.length ? shown : commands).map((c) => `  verity ${c.name.padEnd(28)} ${c.summary}`);
  return `Usage: verity <command> [options]\n\nCommands:\n${rows.join('\n')}\n\nEvery command takes:\n${flagRows(GLOBAL).join('\n')}\n\n  --version                      print the version (also: verity version)\n`;
}

function commandHelp(c: Command): string {
  const opts = flagRows({ ...(c.options ?? {}), ...GLOBAL });
  return `Usage: verity ${c.name}${c.usage ? ` ${c.usage}` : ''}\n\n${c.summary}\n\nOptions:\n${opts.join('\n')}\n`;
}

/** Runs one CLI invocation; returns the exit code (0 ok, 1 failure, 2 usage). */
export async function runCli(argv: string[]): Promise<number> {
  const { command, rest, prefix } = findCommand(argv);
  const wantsJson = argv.includes('--json');
  if (!command) {
    if (argv.includes('--version')) {
      proc.stdout(wantsJson ? `${JSON.stringify({ version: VERSION })}\n` : `verity ${VERSION}\n`);
      return 0;
    }
    const asked = argv.includes('--help') || argv.includes('-h');
    if (asked || (prefix.length === 0 && !wantsJson)) {
      proc.stdout(help(prefix));
      return asked ? 0 : 2;
    }
    if (prefix.length === 0) return fail(new UsageError('no command given (verity --help lists them)'), true);
    if (wantsJson) return fail(new UsageError(`unknown command "${prefix.join(' ')}"`), true);
    proc.stderr(`verity: unknown command "${prefix.join(' ')}"\n\n${help([])}`);
    return 2;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: operandsLast(rest),
      options: { ...GLOBAL, ...(command.options ?? {}) },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    return fail(new UsageError((e as Error).message), wantsJson);
  }
  if (parsed.values.help) {
    proc.stdout(commandHelp(command));
    return 0;
  }
  const surplus = parsed.positionals[operandCount(command)];
  if (surplus !== undefined)
    return fail(new UsageError(`unexpected argument "${printable(surplus)}"`), wantsJson);
  const cli = cliContext(String(parsed.values.config ?? ''), Boolean(parsed.values.json));
  try {
    return (await command.run(cli, parsed as never)) ?? 0;
  } catch (e) {
    const config = await cli.loadConfig().catch(() => undefined);
    const explained = explainSystemError(e, cli.configPath, config);
    return fail(explained ? new OperatorError(explained) : e, cli.json);
  }
}

/** A system error said in terms of the setting to change: no stack trace. */
class OperatorError extends Error {}

function fail(e: unknown, json: boolean): number {
  const code = e instanceof UsageError ? 2 : 1;
  const kind =
    e instanceof UsageError
      ? 'USAGE'
      : e instanceof ConfigError
        ? 'CONFIG_INVALID'
        : e instanceof ValidationError
          ? 'VALIDATION_FAILED'
          : 'FAILED';
  const message = e instanceof Error ? e.message : String(e);
  const extra =
    e instanceof ValidationError && e.fields.length
      ? { fields: e.fields }
      : e instanceof ConfigError
        ? { problems: e.problems }
        : {};
  if (json) proc.stdout(`${JSON.stringify({ error: { code: kind, message, ...extra } })}\n`);
  else {
    proc.stderr(`verity: ${printable(message, true)}\n`);
    // A field's path or message may quote input (an unknown key): its control characters are escaped.
    if (e instanceof ValidationError)
      for (const f of e.fields) proc.stderr(`  - ${printable(f.path)}: ${printable(f.message)}\n`);
    if (code === 2) proc.stderr('Run with --help for usage.\n');
  }
  if (
    code === 1 &&
    !(
      e instanceof UsageError ||
      e instanceof ConfigError ||
      e instanceof ValidationError ||
      e instanceof OperatorError
    ) &&
    !(e instanceof Error && e.name === 'Error')
  ) {
    proc.stderr(`${(e as Error)?.stack ?? ''}\n`);
  }
  return code;
}

function cliContext(configPath: string, json: boolean): CliContext {
  let loaded: Awaited<ReturnType<CliContext['readConfig']>> | undefined;
  const cli: CliContext = {
    json,
    configPath,
    async readConfig() {
      loaded ??= await loadConfigFile(configPath, proc.env);
      return loaded;
    },
    async loadConfig() {
      return (await cli.readConfig()).config;
    },
    async open(opts = {}) {
      const cfg = await cli.loadConfig();
      if (!opts.migrate) {
        const db = await openDb(databaseTarget(cfg));
        const pending = pendingMigrations(db);
        db.close();
        if (pending.length)
          throw new Error(
            `the database needs migrations (${pending.join(', ')}): run "verity migrate" first`,
          );
      }
      return createContext(cfg, { log: cliLog, migrate: opts.migrate ?? false });
    },
    print(human, value) {
      proc.stdout(json ? `${JSON.stringify(value)}\n` : human.endsWith('\n') ? human : `${human}\n`);
    },
  };
  return cli;
}
