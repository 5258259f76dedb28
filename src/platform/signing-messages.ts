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

// Messages travel as one string of lines: a runtime passes a string across threads almost for free,
// where it serialises an object's arrays item by item (about 1 µs a signature on the serving thread
// under Bun). Kids, signing inputs and signatures are base64url and JSON has no raw newline, so a
// line never holds a newline of its own.
export function encodeRequest(r: SigningRequest): string {
  return [r.id, JSON.stringify(r.add), JSON.stringify(r.drop), ...r.jobs.flat()].join('\n');
}

export function decodeRequest(text: string): SigningRequest {
  const [id, add, drop, ...rest] = text.split('\n');
  const jobs: SigningRequest['jobs'] = [];
  for (let i = 0; i < rest.length; i += 2) jobs.push([rest[i]!, rest[i + 1]!]);
  return { id: Number(id), add: JSON.parse(add!), drop: JSON.parse(drop!), jobs };
}

/** A signature the worker could not make is an empty line. */
export function encodeReply(r: SigningReply): string {
  return [r.id, ...r.signatures.map((s) => s ?? '')].join('\n');
}

export function decodeReply(text: string): SigningReply {
  const [id, ...signatures] = text.split('\n');
  return { id: Number(id), signatures: signatures.map((s) => s || null) };
}
