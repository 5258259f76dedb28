import type { Logger } from '../log.ts';
import { startCheckpointer } from '../platform/checkpointer.ts';
import type { Db } from './open.ts';

const EVERY_MS = 100;
/** SQLite's own default: checkpoint on the commit that takes the log past this many pages. */
const AUTOMATIC_PAGES = 1000;

/**
 * Moves WAL checkpoints off the serving connection (see platform/checkpointer.ts) for as long as the
 * server runs. If the worker cannot start, or stops working, SQLite's automatic checkpoint on commit
 * takes over again, so the log never grows without bound.
 */
export async function startBackgroundCheckpoints(db: Db, log: Logger): Promise<() => Promise<void>> {
  const automatic = (on: boolean) => db.sql.exec(`PRAGMA wal_autocheckpoint = ${on ? AUTOMATIC_PAGES : 0}`);
  if (db.path === ':memory:') return async () => {};
  try {
    const checkpointer = await startCheckpointer(db.path, EVERY_MS, (reason) => {
      log.warn('background checkpoints failed; checkpointing on commit again', { reason });
      automatic(true);
    });
    automatic(false);
    return async () => {
      automatic(true);
      await checkpointer.stop();
    };
  } catch (e) {
    log.warn('background checkpoints unavailable; checkpointing on commit', { reason: String(e) });
    return async () => {};
  }
}
