import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { parseConfig } from '../../src/config/load.ts';
import { configSchema } from '../../src/config/schema.ts';

const root = join(import.meta.dir, '../..');
const text = readFileSync(join(root, 'config.example.toml'), 'utf8');

interface ZodLike {
  _zod: { def: { type: string; innerType?: ZodLike; in?: ZodLike; shape?: Record<string, ZodLike> } };
}

/** Strips defaults, refinements and transforms down to the schema that says what a key holds. */
function base(s: ZodLike): ZodLike {
  const def = s._zod.def;
  if (def.innerType) return base(def.innerType);
  if (def.type === 'pipe' && def.in) return base(def.in);
  return s;
}

/** Every key the schema accepts: plain keys, and keyed tables (records) whose names the operator picks. */
function schemaKeys(s: ZodLike, path: string[] = []): { keys: string[][]; tables: string[][] } {
  const b = base(s);
  const out = { keys: [] as string[][], tables: [] as string[][] };
  if (b._zod.def.type === 'object') {
    for (const [k, v] of Object.entries(b._zod.def.shape!)) {
      const sub = schemaKeys(v, [...path, k]);
      out.keys.push(...sub.keys);
      out.tables.push(...sub.tables);
    }
  } else if (b._zod.def.type === 'record') out.tables.push(path);
  else out.keys.push(path);
  return out;
}

const { keys, tables } = schemaKeys(configSchema as unknown as ZodLike);

describe('config.example.toml', () => {
  test('parses with the strict schema and equals the embedded defaults', () => {
    expect(parseConfig(text)).toEqual(parseConfig(''));
  });

  test('sets every key of the schema, each with a comment saying what it is', () => {
    expect(keys.length).toBeGreaterThan(40);
    const raw = parse(text) as Record<string, unknown>;
    const missing = keys.filter((path) => {
      let node: unknown = raw;
      for (const k of path) node = (node as Record<string, unknown> | undefined)?.[k];
      return node === undefined;
    });
    expect(missing.map((p) => p.join('.'))).toEqual([]);

    const uncommented = text.split('\n').filter((line) => /^[a-z_]+ = /.test(line) && !line.includes(' # '));
    expect(uncommented).toEqual([]);
  });

  test('explains every keyed table (per-environment and per-plan overrides)', () => {
    expect(tables.length).toBeGreaterThan(0);
    for (const path of tables) expect(text).toContain(path.at(-1)!);
    expect(text).toContain('[rate_limits.oauth.environments.production]');
    expect(text).toContain('[rate_limits.oauth.plans.enterprise]');
  });

  test('shows the fixed keys of the design (DESIGN.md §7) with their documented values', () => {
    for (const line of [
      'listen = "127.0.0.1:8080"',
      'base_url = "http://localhost:8080"',
      'identity_url = ""',
      'developer_url = ""',
      'trust_proxy = ""',
      'path = "./data/verity.db"',
      'dir = "./data/keys"',
      'rotate_every = "30d"',
      'publish_ahead = "1h"',
      'code_ttl = "5m"',
      'token_ttl = "15m"',
      'allow_localhost_in_sandbox = false',
      'timeout = "5s"',
      'provider = "none"',
    ])
      expect(text).toContain(line);
  });
});
