import type { RsaPrivateKey } from './rs256.ts';
import { runtime } from './runtime.ts';
import { decodeRequest, encodeReply } from './signing-messages.ts';

// A signing thread of the pool (signing-pool.ts): it keeps the keys it was sent, by kid, forgets those
// it is told to, and signs each input with the kid named beside it. A null signature (a key it does not
// hold or could not import) is made again by the pool on the main thread. A build entry point.
const port = runtime.parentPort();
const keys = new Map<string, RsaPrivateKey>();

function sign(kid: string, input: string): string | null {
  const key = keys.get(kid);
  if (!key) return null;
  try {
    return runtime.signRs256(key, input);
  } catch {
    return null;
  }
}

port.onMessage((message) => {
  const { id, add, drop, jobs } = decodeRequest(message as string);
  for (const kid of drop) keys.delete(kid);
  for (const [kid, jwk] of add) {
    try {
      keys.set(kid, runtime.importRsaPrivateJwk(jwk));
    } catch {}
  }
  port.post(encodeReply({ id, signatures: jobs.map(([kid, input]) => sign(kid, input)) }));
});
