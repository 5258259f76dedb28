import { files } from '../platform/files.ts';
import { ConfigError, parseConfig } from './load.ts';
import type { Config } from './schema.ts';

export const DEFAULT_CONFIG_PATH = './verity.toml';

/**
 * Reads the config file: an explicit path must exist; the default path may be absent, in which case
 * the embedded defaults apply (so `verity serve` works with no file at all). `file` is the file read.
 */
export async function loadConfigFile(
  path: string,
  env: Record<string, string | undefined>,
): Promise<{ config: Config; file?: string }> {
  const explicit = path !== '';
  const file = explicit ? path : DEFAULT_CONFIG_PATH;
  const text = await files.readText(file).catch((e: { code?: string; message?: string }) => {
    throw new ConfigError([`config file ${file}: ${e.code === 'EISDIR' ? 'is a directory' : e.message}`]);
  });
  if (text === undefined && explicit) throw new ConfigError([`config file ${path} not found`]);
  return text === undefined
    ? { config: parseConfig('', env) }
    : { config: parseConfig(text, env, file), file };
}
