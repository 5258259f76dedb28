import { createHash, createHmac, randomInt } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** The digests and ids of Node and Deno (Bun has cheaper native ones: see bun.ts). */
export const nodeCrypto = {
  sha256Hex: (text: string): string => createHash('sha256').update(text).digest('hex'),
  sha256Bytes: (data: string | Uint8Array): Uint8Array => createHash('sha256').update(data).digest(),
  hmacSha256Base64url: (key: string, message: string): string =>
    createHmac('sha256', key).update(message).digest('base64url'),
  timeOrderedUuid,
};

// uuid's v7 keeps its ids in order within a millisecond only on its own clock; given the injected
// clock's time, it draws a new random counter for every id. So the counter is kept here
// (RFC 9562 §6.2, method 1): the next id of the same millisecond counts up from the last.
const last = { msecs: Number.NaN, seq: 0 };
function timeOrderedUuid(at: Date): string {
  const msecs = at.getTime();
  if (msecs === last.msecs) last.seq = (last.seq + 1) >>> 0;
  else Object.assign(last, { msecs, seq: randomInt(2 ** 31) });
  return uuidv7({ msecs, seq: last.seq });
}
