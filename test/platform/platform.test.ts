import { describe, expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fixedClock, isoTime, systemClock, unix } from '../../src/platform/clock.ts';
import { files } from '../../src/platform/files.ts';
import { parseListen } from '../../src/platform/listen.ts';
import { runtime } from '../../src/platform/runtime.ts';
import { tempDir } from '../helpers/context.ts';

describe('clock', () => {
  test('a fixed clock stands still until set or advanced', () => {
    const clock = fixedClock(Date.UTC(2026, 0, 1));
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    clock.advance(90_500);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:01:30.500Z');
    clock.set(new Date('2027-03-04T05:06:07Z'));
    expect(clock.now().toISOString()).toBe('2027-03-04T05:06:07.000Z');
  });

  test('isoTime writes unix seconds and dates as ISO 8601 UTC with milliseconds; null stays null', () => {
    expect(isoTime(Date.UTC(2026, 5, 1, 12) / 1000)).toBe('2026-06-01T12:00:00.000Z');
    expect(isoTime(new Date('2026-04-14T00:00:00Z'))).toBe('2026-04-14T00:00:00.000Z');
    expect(isoTime(null)).toBeNull();
  });

  test('unix() is whole seconds, rounded down', () => {
    const clock = fixedClock(Date.UTC(2026, 0, 1) + 999);
    expect(unix(clock)).toBe(Date.UTC(2026, 0, 1) / 1000);
    clock.advance(1);
    expect(unix(clock)).toBe(Date.UTC(2026, 0, 1) / 1000 + 1);
  });

  test('the system clock follows real time', () => {
    const before = Date.now();
    const t = systemClock.now().getTime();
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });
});

describe('listen address', () => {
  test('host:port, IPv6 in brackets', () => {
    expect(parseListen('127.0.0.1:8080')).toEqual({ hostname: '127.0.0.1', port: 8080 });
    expect(parseListen('[::1]:9000')).toEqual({ hostname: '::1', port: 9000 });
    expect(parseListen('localhost:0')).toEqual({ hostname: 'localhost', port: 0 });
  });

  test('anything else is refused', () => {
    for (const bad of ['8080', 'host', 'host:', ':8080', 'host:80x', '::1:8080'])
      expect(() => parseListen(bad)).toThrow(/invalid listen address/);
  });
});

describe('HTTP listener', () => {
  test('serves the handler on a real port with the peer address, and closes', async () => {
    expect(runtime.name).toBe('bun');
    const server = await runtime.listen(
      (req, conn) => Response.json({ path: new URL(req.url).pathname, ip: conn.ip, method: req.method }),
      { hostname: '127.0.0.1', port: 0 },
    );
    try {
      expect(server.port).toBeGreaterThan(0);
      const res = await fetch(`http://127.0.0.1:${server.port}/hello?x=1`, { method: 'POST', body: 'x' });
      expect(await res.json()).toEqual({ path: '/hello', ip: '127.0.0.1', method: 'POST' });
    } finally {
      await server.close();
    }
    await expect(fetch(`http://127.0.0.1:${server.port}/`)).rejects.toThrow();
  });
});

describe('files', () => {
  test('private files and directories are owner-only, written whole', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const keys = join(dir, 'keys');
      await files.ensurePrivateDir(keys);
      expect(statSync(keys).mode & 0o777).toBe(0o700);
      const path = join(keys, 'secret.json');
      await files.writePrivateAtomic(path, '{"k":1}');
      expect(await files.mode(path)).toBe(0o600);
      expect(await files.readText(path)).toBe('{"k":1}');
      await files.writePrivateAtomic(path, new TextEncoder().encode('{"k":2}'));
      expect(await files.readText(path)).toBe('{"k":2}');
      // No temporary file is left beside it.
      expect(await files.list(keys)).toEqual(['secret.json']);
    } finally {
      cleanup();
    }
  });

  test('a missing file or directory reads as absent, not as an error', async () => {
    const { dir, cleanup } = tempDir();
    try {
      expect(await files.readText(join(dir, 'nope.txt'))).toBeUndefined();
      expect(await files.list(join(dir, 'nope'))).toEqual([]);
      expect(await files.exists(join(dir, 'nope'))).toBe(false);
      await files.remove(join(dir, 'nope'));
    } finally {
      cleanup();
    }
  });
});
