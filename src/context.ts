import type { Metrics } from './audit/metrics.ts';
import type { Config } from './config/schema.ts';
import type { Db } from './db/open.ts';
import type { EmailTransport } from './email/transport.ts';
import type { KeyService } from './keys/signing-keys.ts';
import type { Logger } from './log.ts';
import type { Clock } from './platform/clock.ts';

/** Everything a request handler or job needs, built once per process (or per test). */
export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  keys: KeyService;
  /** Mail to developers (`[email]`). */
  email: EmailTransport;
  /** In-process signals, e.g. waking the webhook dispatcher after an event is committed. */
  signals: Signals;
}

export class Signals {
  private listeners = new Map<string, Set<() => void>>();
  on(name: string, fn: () => void): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(fn);
    return () => set.delete(fn);
  }
  emit(name: string): void {
    for (const fn of this.listeners.get(name) ?? []) fn();
  }
}
