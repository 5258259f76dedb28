import { sha256Incremental } from '../crypto/digest.ts';
import type { Db } from '../db/open.ts';
import { files } from '../platform/files.ts';
import { BackupError, DATABASE, isKeyFile, type Member, writeArchive } from './archive.ts';

export { BackupError };

export interface BackupResult {
  file: string;
  bytes: number;
  /** How many files of the keys directory (signing keys and instance secrets) the archive holds. */
  keys: number;
  /** SHA-256 of the archive file, hex. */
  sha256: string;
}

/**
 * One archive holding a consistent database snapshot and the keys directory. The snapshot is taken
 * first: a key published afterwards is then at worst a file without a row (swept later), never a row
 * without its file. Everything is written 0600 from its first byte inside a private temporary directory
 * beside `file`, synced, and renamed into place, so `file` is never half-written.
 */
export async function createBackup(
  db: Db,
  keysDir: string,
  file: string,
  opts: { force?: boolean; now: Date },
): Promise<BackupResult> {
  if (db.path === ':memory:') throw new BackupError('an in-memory database cannot be backed up');
  if (files.resolve(file) === files.resolve(db.path))
    throw new BackupError('the backup file cannot be the database itself');
  if (!opts.force && (await files.exists(file)))
    throw new BackupError(`${file} already exists (use --force to replace it)`);
  const work = await files.makePrivateTempDir(files.dirname(file), '.verity-backup-');
  try {
    const snapshot = files.join(work, DATABASE);
    // VACUUM INTO accepts an empty file: created here, it is 0600 before SQLite writes a byte.
    await (await files.createPrivate(snapshot)).close();
    await db.backup(snapshot);
    const members = [await fileMember(DATABASE, snapshot)];
    for (const name of (await files.list(keysDir)).filter(isKeyFile).sort())
      members.push(await fileMember(`keys/${name}`, files.join(keysDir, name)));

    const tmp = files.join(work, 'archive.tar');
    const out = await files.createPrivate(tmp);
    let written: { bytes: number; sha256: string };
    try {
      written = await writeArchive(out, members, opts.now);
      await out.sync();
    } finally {
      await out.close();
    }
    await files.rename(tmp, file);
    return { file, bytes: written.bytes, keys: members.length - 1, sha256: written.sha256 };
  } finally {
    await files.removeTree(work);
  }
}

async function fileMember(name: string, path: string): Promise<Member> {
  const hash = sha256Incremental();
  let bytes = 0;
  for await (const chunk of files.readChunks(path)) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { name, bytes, sha256: hash.hex(), chunks: () => files.readChunks(path) };
}
