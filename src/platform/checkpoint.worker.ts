/**
 * The checkpoint worker (see checkpointer.ts): its own connection to the database, which it
 * checkpoints when asked, one request at a time. Started by `runtime.spawnWorker`; a build entry point.
 */
import { existsSync } from 'node:fs';
import { runtime } from './runtime.ts';
import type { SqliteDriver } from './sqlite.ts';

export type CheckpointRequest =
  | { type: 'start'; path: string; faultPath?: string }
  | { type: 'checkpoint' }
  | { type: 'stop' };
export type CheckpointAnswer = { type: 'done' } | { type: 'error'; message: string };

const port = runtime.parentPort();
let db: SqliteDriver | undefined;
let faultPath: string | undefined;

function checkpoint() {
  if (faultPath && existsSync(faultPath)) throw new Error('injected checkpoint fault');
  db?.exec('PRAGMA wal_checkpoint(PASSIVE)');
}

async function handle(m: CheckpointRequest): Promise<void> {
  if (m.type === 'start') {
    faultPath = m.faultPath;
    db = await runtime.openSqlite(m.path);
    db.exec('PRAGMA busy_timeout = 5000');
  } else if (m.type === 'checkpoint') checkpoint();
  else {
    try {
      checkpoint();
    } catch {}
    db?.close();
  }
}

port.onMessage((m) =>
  handle(m as CheckpointRequest).then(
    () => port.post({ type: 'done' } satisfies CheckpointAnswer),
    (e) =>
      port.post({ type: 'error', message: String((e as Error)?.message ?? e) } satisfies CheckpointAnswer),
  ),
);
