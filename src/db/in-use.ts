import { runtime } from '../platform/runtime.ts';

/**
 * Whether another process has the database open. In WAL mode every open connection, even an idle one,
 * holds a shared lock on the file until it closes (the operating system drops it if the process dies),
 * so an exclusive lock is refused while a server runs, under Bun and Node alike. No lock file to go stale.
 */
export async function openElsewhere(path: string): Promise<boolean> {
  const sql = await runtime.openSqlite(path);
  try {
    sql.exec('PRAGMA busy_timeout = 200');
    sql.exec('PRAGMA locking_mode = EXCLUSIVE');
    sql.exec('BEGIN EXCLUSIVE');
    sql.exec('COMMIT');
    return false;
  } catch (e) {
    if (/locked|busy/i.test((e as Error).message)) return true;
    throw e;
  } finally {
    sql.close();
  }
}
