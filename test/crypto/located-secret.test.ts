import { describe, expect, test } from 'bun:test';
import { sha256HexSync } from '../../src/crypto/digest.ts';
import {
  locatedSecretId,
  matchesStoredHash,
  mintLocatedSecret,
  timeOrderedUuid,
} from '../../src/crypto/located-secret.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import { nodeCrypto } from '../../src/platform/node-crypto.ts';

describe('located secrets', () => {
  test('carry a time-ordered id and 256 random bits; only the hash of the whole value is kept', () => {
    const clock = fixedClock(Date.UTC(2026, 5, 1));
    const s = mintLocatedSecret(clock, 'at_');
    expect(s.value).toMatch(/^at_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
    expect(s.value.slice(3, 35)).toBe(s.id);
    expect(s.hash).toBe(sha256HexSync(s.value));
    expect(mintLocatedSecret(clock, 'at_').value).not.toBe(s.value);
  });

  test('ids minted later sort later, so rows are appended in issue order', () => {
    const clock = fixedClock(Date.UTC(2026, 5, 1));
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      ids.push(mintLocatedSecret(clock).id);
      clock.advance(1);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(timeOrderedUuid(clock.now())).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  });

  // The running runtime's ids, and Node's and Deno's (tested here under Bun).
  for (const [runtime, uuid] of [
    ['this runtime', timeOrderedUuid],
    ['Node and Deno', nodeCrypto.timeOrderedUuid],
  ] as const)
    test(`ids minted within one millisecond still sort in issue order, and carry the clock's time (${runtime})`, () => {
      const clock = fixedClock(Date.UTC(2031, 0, 2, 3, 4, 5, 678));
      const ids = Array.from({ length: 200 }, () => uuid(clock.now()));
      expect([...ids].sort()).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids)
        expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(clock.now().getTime());
      clock.advance(1);
      const next = uuid(clock.now());
      expect(next > ids.at(-1)!).toBe(true);
    });

  test('a presented value names its row only when it has the exact form', () => {
    const s = mintLocatedSecret(fixedClock(), 'at_');
    expect(locatedSecretId(s.value, 'at_')).toBe(s.id);
    for (const bad of [
      s.value.slice(3), // no prefix
      `${s.value}x`, // too long
      s.value.slice(0, -1), // too short
      s.value.replace(s.id, s.id.toUpperCase()), // the id is lowercase hex
      `at_${'g'.repeat(32)}${s.value.slice(35)}`,
      `${s.value.slice(0, -1)}=`, // not base64url
      '',
    ])
      expect(locatedSecretId(bad, 'at_')).toBeUndefined();
  });

  test('a value with the right id but another secret does not match the stored hash', () => {
    const s = mintLocatedSecret(fixedClock());
    expect(matchesStoredHash(s.value, s.hash)).toBe(true);
    const forged = `${s.id}${'A'.repeat(43)}`;
    expect(locatedSecretId(forged)).toBe(s.id);
    expect(matchesStoredHash(forged, s.hash)).toBe(false);
  });
});
