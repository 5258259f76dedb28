import type { Clock } from '../platform/clock.ts';
import { runtime } from '../platform/runtime.ts';
import { sha256HexSync } from './digest.ts';
import { constantTimeEqual, randomToken } from './tokens.ts';

/**
 * A UUIDv7 (RFC 9562): ids minted one after another sort one after another, so their rows and index
 * entries are appended to the same few B-tree pages instead of landing on a random page each. On the
 * token endpoint's write path a random key costs a page write per row; see `mintLocatedSecret`.
 * The runtime's own generator: the token endpoint mints two per exchange.
 */
export const timeOrderedUuid: (at: Date) => string = runtime.timeOrderedUuid;

/**
 * A secret that carries the key of its own row: `prefix` + a time-ordered id (32 hex digits, not
 * secret) + 256 random bits (base64url). Authorization codes and access tokens are of this form.
 *
 * The row is keyed by the id, so issuing one appends to the table instead of inserting at the random
 * position of a hash. Only the SHA-256 of the whole value is stored, as for every credential; a
 * presented value is looked up by its id and accepted only if the hashes match (compared in constant
 * time), so knowing or guessing an id is worth nothing without the random part.
 */
export interface LocatedSecret {
  value: string;
  id: string;
  hash: string;
}

const ID_LENGTH = 32;
const SECRET = /^[A-Za-z0-9_-]{43}$/;
const ID = /^[0-9a-f]{32}$/;

export function mintLocatedSecret(clock: Clock, prefix = ''): LocatedSecret {
  const id = timeOrderedUuid(clock.now()).replaceAll('-', '');
  const value = `${prefix}${id}${randomToken()}`;
  return { value, id, hash: sha256HexSync(value) };
}

/** The row id a presented value names, or undefined when it is not of the form at all. */
export function locatedSecretId(value: string, prefix = ''): string | undefined {
  if (!value.startsWith(prefix)) return undefined;
  const id = value.slice(prefix.length, prefix.length + ID_LENGTH);
  const secret = value.slice(prefix.length + ID_LENGTH);
  return ID.test(id) && SECRET.test(secret) ? id : undefined;
}

/** Whether `value` is the secret whose hash was stored. */
export function matchesStoredHash(value: string, storedHash: string): boolean {
  return constantTimeEqual(sha256HexSync(value), storedHash);
}
