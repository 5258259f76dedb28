import { Metrics } from './audit/metrics.ts';
import type { Config } from './config/schema.ts';
import { type AppContext, Caches, Signals } from './context.ts';
import { migrate } from './db/migrate.ts';
import { databaseTarget, openDb, optimize } from './db/open.ts';
import { createEmailTransport } from './email/transport.ts';
import { seedPersonas } from './identity/personas.ts';
import { bindKeyMaterial } from './keys/key-binding.ts';
import { KeyService } from './keys/signing-keys.ts';
import { jsonLogger, type Logger } from './log.ts';
import { type Clock, systemClock } from './platform/clock.ts';

export interface ContextOptions {
  clock?: Clock;
  log?: Logger;
  /** Apply pending migrations (serve does; other commands refuse to run on an old schema). */
  migrate?: boolean;
}

/**
 * Opens the database, applies migrations, checks that the keys directory (and the configured secrets)
 * belong to this database, and makes sure a signing key is active.
 */
export async function createContext(config: Config, opts: ContextOptions = {}): Promise<AppContext> {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? jsonLogger(config.log.level);
  const db = await openDb(databaseTarget(config));
  if (opts.migrate !== false) {
    migrate(db, clock, { log });
    seedPersonas(db);
  }
  optimize(db);
  try {
    await bindKeyMaterial({ db, config, clock, log });
  } catch (e) {
    db.close();
    throw e;
  }
  const keys = new KeyService(db, config, clock, log);
  await keys.ensureActive();
  const email = createEmailTransport(config.email, log);
  const signals = new Signals();
  return { config, db, clock, log, metrics: new Metrics(), keys, email, signals, caches: new Caches() };
}
