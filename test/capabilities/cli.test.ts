import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { listAudit } from '../../src/audit/audit.store.ts';
import { createContext } from '../../src/bootstrap.ts';
import { loadCatalogue } from '../../src/capabilities/availability.ts';
import { parseConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { cli } from '../helpers/cli.ts';
import { tempDir, testToml } from '../helpers/context.ts';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

async function setup() {
  const t = tempDir('verity-caps-cli');
  cleanup = t.cleanup;
  const toml = testToml(t.dir);
  const configPath = join(t.dir, 'verity.toml');
  await Bun.write(configPath, toml);
  (await createContext(parseConfig(toml), { log: silentLogger })).db.close();
  const run = (...args: string[]) => cli(...args, '--config', configPath);
  const inspect = async <T>(fn: (db: Awaited<ReturnType<typeof createContext>>['db']) => T): Promise<T> => {
    const c = await createContext(parseConfig(toml), { log: silentLogger, migrate: false });
    try {
      return fn(c.db);
    } finally {
      c.db.close();
    }
  };
  return { run, inspect };
}

describe('verity capabilities', () => {
  test('list shows every pair of the dataset, or one country, with its availability', async () => {
    const s = await setup();
    const all = await s.run('capabilities', 'list', '--json');
    expect(all.code).toBe(0);
    expect(all.json.capabilities.length).toBeGreaterThan(100);
    const gb = await s.run('capabilities', 'list', '--country', 'gb', '--json');
    expect(gb.json.capabilities).toEqual([
      expect.objectContaining({
        country: 'GB',
        name: 'United Kingdom',
        documentType: 'passport',
        available: true,
      }),
      expect.objectContaining({ country: 'GB', documentType: 'driving_licence', available: true }),
      expect.objectContaining({ country: 'GB', documentType: 'residence_permit', available: false }),
    ]);
    const human = await s.run('capabilities', 'list', '--country', 'GB');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('residence_permit');
    expect(human.stdout).toContain('unavailable');
  });

  test('set changes availability, says what it was, and writes the audit log', async () => {
    const s = await setup();
    // Flags may come before the positionals.
    const r = await s.run('capabilities', 'set', '--available', 'false', 'fr', 'ID_CARD', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      country: 'FR',
      documentType: 'id_card',
      available: false,
      previous: true,
      updatedAt: expect.stringMatching(/Z$/),
    });
    const human = await s.run('capabilities', 'set', 'FR', 'id_card', '--available=false');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('unchanged');
    const pair = await s.inspect(
      (db) =>
        loadCatalogue(db)
          .country('FR')!
          .documents.find((d) => d.documentType === 'id_card')!,
    );
    expect(pair.available).toBe(false);
    const audit = await s.inspect((db) => listAudit(db, { action: 'capability.set' }));
    expect(audit).toHaveLength(2);
    expect(audit[1]).toMatchObject({
      actor: 'cli',
      target: 'FR/id_card',
      details: { available: false, previous: true },
    });
  });

  test('malformed input is a usage error (exit 2) and changes nothing', async () => {
    const s = await setup();
    for (const args of [
      ['DE', 'passport'],
      ['DE', 'passport', '--available'],
      ['DE', 'passport', '--available', 'yes'],
      ['DE', 'passport', '--available', ''],
      ['DEU', 'passport', '--available', 'false'],
      ['1!', 'passport', '--available', 'false'],
      ['DE', '--available', 'false'],
      ['--available', 'false'],
      ['DE', 'passport', 'extra', '--available', 'false'],
      ['DE', 'passport', '--available', 'false', '--bogus'],
    ]) {
      const r = await s.run('capabilities', 'set', ...args, '--json');
      expect(`${args.join(' ')} → ${r.code}`).toBe(`${args.join(' ')} → 2`);
      expect(r.json.error.code).toBe('USAGE');
    }
    expect((await s.run('capabilities', 'list', '--country', 'Deutschland')).code).toBe(2);
    expect(await s.inspect((db) => listAudit(db, { action: 'capability.set' }))).toEqual([]);
  });

  test('unknown countries, document types and pairs fail (exit 1) and change nothing', async () => {
    const s = await setup();
    for (const [cc, type] of [
      ['BR', 'passport'],
      ['XX', 'passport'],
      ['DE', 'visa'],
      ['DE', '__proto__'],
      ['DK', 'id_card'],
    ]) {
      const r = await s.run('capabilities', 'set', cc!, type!, '--available', 'true', '--json');
      expect(`${cc} ${type} → ${r.code}`).toBe(`${cc} ${type} → 1`);
      expect(r.json.error.message.length).toBeGreaterThan(0);
    }
    expect((await s.run('capabilities', 'list', '--country', 'BR')).code).toBe(1);
    expect(await s.inspect((db) => listAudit(db, { action: 'capability.set' }))).toEqual([]);
  });
});
