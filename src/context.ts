import type { Metrics } from './audit/metrics.ts';
import type { Config } from './config/schema.ts';
import type { Db } from './db/open.ts';
import type { EmailTransport } from './email/transport.ts';
import type { KeyService } from './keys/key.service.ts';
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

/** What each signal carries: `webhooks`, the number of deliveries just queued. */
interface SignalPayloads {
  webhooks: number;
}

export class Signals {
  private listeners = new Map<keyof SignalPayloads, Set<(n: number) => void>>();
  on<K extends keyof SignalPayloads>(name: K, fn: (payload: SignalPayloads[K]) => void): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(fn);
    return () => set.delete(fn);
  }
  emit<K extends keyof SignalPayloads>(name: K, payload: SignalPayloads[K]): void {
    for (const fn of this.listeners.get(name) ?? []) fn(payload);
  }
}
