import type { Config } from '../config/schema.ts';
import { openElsewhere } from '../db/in-use.ts';
import { openDb } from '../db/open.ts';
import {
  type BindingReport,
  bindingMessage,
  KeyBindingError,
  type KeyMaterial,
  keyMaterialOnDisk,
  verifyKeyBinding,
} from '../keys/key-binding.ts';
import { files } from '../platform/files.ts';
import { BackupError, DATABASE, PG_BACKUP, readArchive } from './archive.ts';

export interface RestoreResult {
  database: string;
  keysDir: string;
  /** Files restored into the keys directory. */
  keys: number;
  /** When the backup was taken (ISO 8601). */
  createdAt: string;
  warnings: string[];
}

const COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * Puts a backup archive back as `[database] path` and `[keys] dir`. Refuses to replace an existing
 * database unless `force`, and always refuses one another process (a running server) has open. The
 * archive is verified in full into private staging directories, and the staged pair must pass the key
 * check a start runs, before anything is replaced; stale `-wal`/`-shm` files go.
 */
export async function restoreBackup(
  config: Config,
  file: string,
  opts: { force?: boolean },
): Promise<RestoreResult> {
  if (config.database.url) throw new BackupError(PG_BACKUP);
  const dbPath = config.database.path;
  const keysDir = config.keys.dir;
  const exists = await files.exists(dbPath);
  if (exists && !opts.force) throw new BackupError(`${dbPath} already exists (use --force to replace it)`);
  if (exists && (await openElsewhere(dbPath)))
    throw new BackupError(`${dbPath} is open in another process: stop the server before restoring`);
  if (!opts.force && (await files.list(keysDir)).length)
    throw new BackupError(`${keysDir} is not empty (use --force to replace it)`);

  // Staged beside the database, or beside the keys directory when it holds the database: that
  // directory is replaced whole.
  const dbStage = await files.makePrivateTempDir(
    files.dirname(files.resolve(files.isInside(dbPath, keysDir) ? keysDir : dbPath)),
    '.verity-restore-',
  );
  const keysStage = await files.makePrivateTempDir(
    files.dirname(files.resolve(keysDir)),
    '.verity-restore-keys-',
  );
  try {
    const manifest = await readArchive(file, async (name) =>
      files.createPrivate(
        name === DATABASE ? files.join(dbStage, DATABASE) : files.join(keysStage, name.slice(5)),
      ),
    );
    // The staged pair must pass the key check a start runs before it replaces anything.
    const report = await check(files.join(dbStage, DATABASE), {
      ...keyMaterialOnDisk({ ...config, keys: { ...config.keys, dir: keysStage } }),
      dir: keysDir,
    });
    if (report.problems.length) throw new KeyBindingError(bindingMessage(keysDir, report.problems));
    // Verified: now replace. Keys first, so a database is never there without its keys.
    await files.removeTree(keysDir);
    await files.rename(keysStage, keysDir);
    await files.ensurePrivateDir(keysDir);
    for (const suffix of ['', ...COMPANIONS]) await files.remove(dbPath + suffix);
    await files.ensureDir(files.dirname(dbPath));
    await files.rename(files.join(dbStage, DATABASE), dbPath);
    return {
      database: dbPath,
      keysDir,
      keys: Object.keys(manifest.members).length - 1,
      createdAt: manifest.createdAt,
      warnings: report.warnings,
    };
  } finally {
    await files.removeTree(dbStage);
    await files.removeTree(keysStage);
  }
}

async function check(dbPath: string, material: KeyMaterial): Promise<BindingReport> {
  const db = await openDb(dbPath);
  try {
    return await verifyKeyBinding(db, material);
  } finally {
    db.close();
  }
}
