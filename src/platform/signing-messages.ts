/** The messages between the signing pool (signing-pool.ts) and its threads (signing.worker.ts). */

/** What the pool posts to a worker: keys to import and to forget, then [kid, input] to sign. */
export interface SigningRequest {
  id: number;
  add: [kid: string, jwk: JsonWebKey][];
  drop: string[];
  jobs: [kid: string, input: string][];
}

/** A signature per job, in order; null where the worker could not sign. */
export interface SigningReply {
  id: number;
  signatures: (string | null)[];
}

// A message is one string: a runtime passes a string across threads almost for free, where it
// serialises an object's arrays item by item (about 1 µs a signature on the serving thread under
// Bun). It is a line of JSON, which ends with the lengths of the strings that follow it, run
// together: whatever they hold, they are cut where they were joined (null is length -1).
function pack(head: unknown[], parts: (string | null)[]): string {
  const lengths = parts.map((p) => (p === null ? -1 : p.length));
  return `${JSON.stringify([...head, lengths])}\n${parts.join('')}`;
}

function unpack(text: string): { head: unknown[]; parts: (string | null)[] } {
  const end = text.indexOf('\n');
  const head = JSON.parse(text.slice(0, end)) as unknown[];
  const parts: (string | null)[] = [];
  let at = end + 1;
  for (const n of head.pop() as number[]) {
    parts.push(n < 0 ? null : text.slice(at, at + n));
    at += Math.max(n, 0);
  }
  return { head, parts };
}

export function encodeRequest(r: SigningRequest): string {
  return pack([r.id, r.add, r.drop], r.jobs.flat());
}

export function decodeRequest(text: string): SigningRequest {
  const { head, parts } = unpack(text);
  const jobs: SigningRequest['jobs'] = [];
  for (let i = 0; i < parts.length; i += 2) jobs.push([parts[i]!, parts[i + 1]!]);
  const [id, add, drop] = head as [number, SigningRequest['add'], string[]];
  return { id, add, drop, jobs };
}

export function encodeReply(r: SigningReply): string {
  return pack([r.id], r.signatures);
}

export function decodeReply(text: string): SigningReply {
  const { head, parts } = unpack(text);
  return { id: head[0] as number, signatures: parts };
}
