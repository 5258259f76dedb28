import { createHash, createHmac } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** The digests and ids of Node and Deno (Bun has cheaper native ones: see bun.ts). */
export const nodeCrypto = {
  sha256Hex: (text: string): string => createHash('sha256').update(text).digest('hex'),
  sha256Bytes: (data: string | Uint8Array): Uint8Array => createHash('sha256').update(data).digest(),
  hmacSha256Base64url: (key: string, message: string): string =>
    createHmac('sha256', key).update(message).digest('base64url'),
  timeOrderedUuid: (at: Date): string => uuidv7({ msecs: at.getTime() }),
};
