import type { Config } from '../config/schema.ts';
import { files } from '../platform/files.ts';
import { ListenError } from '../platform/listen.ts';

/** A file system error as Node reports it: the failing path and the system's code. */
interface FsError {
  code: string;
  path: string;
}
const isFsError = (e: unknown): e is FsError =>
  typeof (e as FsError)?.code === 'string' && typeof (e as FsError)?.path === 'string';

const FS_PROBLEM: Record<string, string> = {
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EACCES: 'permission denied for the user running verity',
  EPERM: 'operation not permitted for the user running verity',
  EROFS: 'is on a read-only file system',
  ENOSPC: 'no space left on the device',
  ELOOP: 'too many symbolic links',
};

const LISTEN_PROBLEM: Record<string, string> = {
  EADDRINUSE: 'is in use',
  EACCES: 'is not permitted (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'is not an address of this machine',
  ENOTFOUND: 'names a host that does not resolve',
};

/** Whether `path` is `target` or on the way to it (a directory mkdir could not create). */
function concerns(path: string, target: string): boolean {
  const p = files.resolve(path);
  const t = files.resolve(target);
  return t === p || t.startsWith(`${p}/`) || p.startsWith(`${t}/`) || p.startsWith(`${t}-`);
}

/**
 * A system error (a busy port, a path that is a directory, no permission) said in terms of the
 * setting to change and how, or undefined when it is not one the operator can fix from the config.
 */
export function explainSystemError(e: unknown, configPath: string, config?: Config): string | undefined {
  if (e instanceof ListenError) {
    const address = `${e.hostname.includes(':') ? `[${e.hostname}]` : e.hostname}:${e.port}`;
    const demo = config?.demo.listen === address && config.server.listen !== address;
    const [key, variable] = demo
      ? ['[demo] listen', 'VERITY_DEMO_LISTEN']
      : ['[server] listen', 'VERITY_SERVER_LISTEN'];
    const problem = LISTEN_PROBLEM[e.code] ?? `cannot be bound (${e.code})`;
    return `${key} ${address} ${problem}: change it or set ${variable}`;
  }
  if (!isFsError(e)) return undefined;
  const problem = FS_PROBLEM[e.code];
  if (!problem) return undefined;
  if (configPath && concerns(e.path, configPath) && e.code !== 'ENOSPC')
    return `--config ${configPath}: ${e.path} ${problem}`;
  const settings: [string, string, string | undefined][] = [
    ['[database] path', 'VERITY_DATABASE_PATH', config?.database.path],
    ['[keys] dir', 'VERITY_KEYS_DIR', config?.keys.dir],
  ];
  for (const [key, variable, value] of settings)
    if (value && concerns(e.path, value))
      return `${key}: ${e.path} ${problem}: correct it or choose another path (or set ${variable})`;
  return undefined;
}
