/**
 * A small Prometheus registry: counters and histograms with labels, rendered in the text exposition
 * format. Other domains register their own counters (webhook deliveries, tokens issued, …).
 */
type Labels = Record<string, string>;

const escapeValue = (v: string) =>
  /[\\"\n]/.test(v) ? v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : v;

// Called for every request: label names are sorted by code unit (no locale), values escaped only
// when they need it.
const key = (labels: Labels) => {
  let out = '';
  for (const k of Object.keys(labels).sort()) out += `${out ? ',' : ''}${k}="${escapeValue(labels[k]!)}"`;
  return out;
};

export class Counter {
  private values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  inc(labels: Labels = {}, by = 1): void {
    this.incKey(key(labels), by);
  }
  /** `inc` with the labels already rendered by `key`. */
  incKey(k: string, by = 1): void {
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
  get(labels: Labels = {}): number {
    return this.values.get(key(labels)) ?? 0;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [k, v] of this.values) lines.push(`${this.name}${k ? `{${k}}` : ''} ${v}`);
    return lines.join('\n');
  }
}

export class Gauge {
  private values = new Map<string, () => number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  /** Read at scrape time, e.g. a COUNT over the outbox. */
  set(fn: () => number, labels: Labels = {}): void {
    this.values.set(key(labels), fn);
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`];
    for (const [k, fn] of this.values) lines.push(`${this.name}${k ? `{${k}}` : ''} ${fn()}`);
    return lines.join('\n');
  }
}

export class Histogram {
  private series = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  ) {}
  observe(labels: Labels, value: number): void {
    this.observeKey(key(labels), value);
  }
  /** `observe` with the labels already rendered by `key`. */
  observeKey(k: string, value: number): void {
    let s = this.series.get(k);
    if (!s) {
      s = { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(k, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [k, s] of this.series) {
      const sep = k ? ',' : '';
      this.buckets.forEach((b, i) => {
        lines.push(`${this.name}_bucket{${k}${sep}le="${b}"} ${s.counts[i]}`);
      });
      lines.push(`${this.name}_bucket{${k}${sep}le="+Inf"} ${s.count}`);
      lines.push(`${this.name}_sum${k ? `{${k}}` : ''} ${s.sum}`);
      lines.push(`${this.name}_count${k ? `{${k}}` : ''} ${s.count}`);
    }
    return lines.join('\n');
  }
}

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export class Metrics {
  private all = new Map<string, Counter | Gauge | Histogram>();
  readonly requests = this.counter(
    'verity_http_requests_total',
    'HTTP requests by route, method and status.',
  );
  readonly latency = this.histogram('verity_http_request_duration_seconds', 'HTTP request latency by route.');
  /** The rendered labels of `requests` and `latency` per route, method and status (a bounded set). */
  private finishedLabels = new Map<string, [string, string]>();

  /**
   * A finished request, counted and timed; its labels are rendered once, not on every request. A method
   * outside HTTP's own is `OTHER`: some listeners (Deno's) pass any token through, and each would be
   * a series of its own, kept for good.
   */
  finished(route: string, requestMethod: string, status: number, seconds: number): void {
    const method = HTTP_METHODS.has(requestMethod) ? requestMethod : 'OTHER';
    const id = `${status} ${method} ${route}`;
    let labels = this.finishedLabels.get(id);
    if (!labels) {
      labels = [key({ route, method, status: String(status) }), key({ route })];
      this.finishedLabels.set(id, labels);
    }
    this.requests.incKey(labels[0]);
    this.latency.observeKey(labels[1], seconds);
  }

  counter(name: string, help: string): Counter {
    return this.register(name, () => new Counter(name, help)) as Counter;
  }
  gauge(name: string, help: string): Gauge {
    return this.register(name, () => new Gauge(name, help)) as Gauge;
  }
  histogram(name: string, help: string): Histogram {
    return this.register(name, () => new Histogram(name, help)) as Histogram;
  }
  render(): string {
    return `${[...this.all.values()].map((m) => m.render()).join('\n')}\n`;
  }
  private register(name: string, make: () => Counter | Gauge | Histogram) {
    let m = this.all.get(name);
    if (!m) {
      m = make();
      this.all.set(name, m);
    }
    return m;
  }
}
