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
  /** Per-process state (caches of database rows, counters, the dispatcher): a new context starts empty. */
  caches: Caches;
  /**
   * Only on the context of a request being served (`c.var.ctx`, src/http/request-context.ts): its id,
   * which the security events emitted with that context carry.
   */
  readonly requestId?: string;
}

/** A named piece of per-process state and how to make it; declared once, as a module constant. */
export interface Slot<T> {
  readonly create: () => T;
}

export const slot = <T>(create: () => T): Slot<T> => ({ create });

/** The state of each slot for one context, made on first use. */
export class Caches {
  private readonly values = new Map<Slot<unknown>, unknown>();
  get<T>(s: Slot<T>): T {
    let v = this.values.get(s) as T | undefined;
    if (v === undefined) {
      v = s.create();
      this.values.set(s, v);
    }
    return v;
  }
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
