/** A thread started with `runtime.spawnWorker`, as its spawner sees it. */
export interface WorkerHandle {
  /** Messages posted before the worker listens are held until it does. */
  post(message: unknown): void;
  onMessage(fn: (message: unknown) => void): void;
  /** Called when the thread fails or ends, with why. */
  onExit(fn: (reason: string) => void): void;
  terminate(): void;
  /** Whether the thread keeps the process alive (it does not, unless asked to while it works). */
  ref(): void;
  unref(): void;
}

/** The spawner, as the worker sees it; the worker listens from the moment it asks for it. */
export interface ParentPort {
  post(message: unknown): void;
  onMessage(fn: (message: unknown) => void): void;
}

// A Web Worker drops what arrives before its module has added a listener (a module that awaits
// while loading, as runtime.ts does, is still loading), so the worker says when it listens.
const LISTENING = '__worker_listening__';

/** Bun and Deno both have Web Workers. */
export function spawnWebWorker(url: URL): WorkerHandle {
  // Bun's Worker has ref/unref; Deno's has neither (main.ts exits explicitly, so an idle one holds nothing).
  const w = new Worker(url, { type: 'module' }) as Worker & { ref?(): void; unref?(): void };
  w.unref?.();
  let held: unknown[] | undefined = [];
  const listeners: ((m: unknown) => void)[] = [];
  w.addEventListener('message', (e) => {
    if (e.data === LISTENING) {
      for (const m of held ?? []) w.postMessage(m);
      held = undefined;
    } else for (const fn of listeners) fn(e.data);
  });
  return {
    post: (m) => (held ? held.push(m) : w.postMessage(m)),
    onMessage: (fn) => listeners.push(fn),
    onExit: (fn) => {
      w.addEventListener('error', (e) => fn(String((e as ErrorEvent).message)));
      w.addEventListener('close', () => fn('exited'));
    },
    terminate: () => w.terminate(),
    ref: () => w.ref?.(),
    unref: () => w.unref?.(),
  };
}

export function webParentPort(): ParentPort {
  const scope = globalThis as unknown as {
    postMessage(m: unknown): void;
    addEventListener(type: 'message', fn: (e: MessageEvent) => void): void;
  };
  const listeners: ((m: unknown) => void)[] = [];
  scope.addEventListener('message', (e) => {
    for (const fn of listeners) fn(e.data);
  });
  scope.postMessage(LISTENING);
  return {
    post: (m) => scope.postMessage(m),
    onMessage: (fn) => listeners.push(fn),
  };
}
