import { randomId } from '../crypto/tokens.ts';
import { files } from '../platform/files.ts';
import type { Db } from './open.ts';

export class BackupError extends Error {}

export interface BackupResult {
  file: string;
  bytes: number;
}

/**
 * A consistent copy of the live database in one self-contained file. `VACUUM INTO` reads a single
 * snapshot, so it is safe while the server keeps writing (WAL readers never block writers). The copy
 * is written under a temporary name and moved into place, so `file` is never a half-written database;
 * it holds password hashes and hashed credentials, so it is readable by its owner only.
 */
export async function backupDatabase(
  db: Db,
  file: string,
  opts: { force?: boolean } = {},
): Promise<BackupResult> {
  if (db.path === ':memory:') throw new BackupError('an in-memory database cannot be backed up');
  if (files.resolve(file) === files.resolve(db.path))
    throw new BackupError('the backup file cannot be the database itself');
  if (!opts.force && (await files.exists(file)))
    throw new BackupError(`${file} already exists (use --force to replace it)`);
  await files.ensureDir(files.dirname(file));
  const tmp = files.join(files.dirname(file), `.${randomId('backup-')}.tmp`);
  try {
    await db.sql.backup(tmp);
    await files.publishPrivate(tmp, file);
  } catch (e) {
    await files.remove(tmp);
    throw e;
  }
  return { file, bytes: await files.size(file) };
}
