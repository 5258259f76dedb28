import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/load.ts';
import { keysJobs } from '../../src/keys/jobs.ts';
import { sweepTemporaryKeyFiles, TEMPORARY_GRACE_SECONDS } from '../../src/keys/rotation.ts';
import { type FixedClock, fixedClock, unix } from '../../src/platform/clock.ts';
import { files } from '../../src/platform/files.ts';
import { startServer } from '../../src/server.ts';
import { type TestContext, tempDir, testContext, testToml } from '../helpers/context.ts';
import { keptLog } from '../helpers/log.ts';
import { freePort } from '../helpers/server.ts';

let ctx: TestContext | undefined;
afterEach(() => {
  ctx?.cleanup();
  ctx = undefined;
});

const KID = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
const uuid = () => crypto.randomUUID();
/** The name an atomic key write uses before its rename: `<kid>.jwk.json.<uuid>.tmp`. */
const tmpKeyName = (kid = KID) => `${kid}.jwk.json.${uuid()}.tmp`;

/** A file in `dir` last modified `ageSeconds` before the clock (negative: after it). */
function fileAged(
  dir: string,
  name: string,
  clock: FixedClock,
  ageSeconds: number,
  body = '{"d":"private"}',
) {
  const path = join(dir, name);
  writeFileSync(path, body, { mode: 0o600 });
  const t = unix(clock) - ageSeconds;
  utimesSync(path, t, t);
  return path;
}

describe('temporary key files left by a crash between write and rename', () => {
  test('swept once older than the grace period; younger ones may be writes in progress', async () => {
    ctx = await testContext();
    const dir = join(ctx.dir, 'keys');
    const stale = fileAged(dir, tmpKeyName(), ctx.clock, TEMPORARY_GRACE_SECONDS + 3600);
    const exactly = fileAged(dir, tmpKeyName(), ctx.clock, TEMPORARY_GRACE_SECONDS);
    const young = fileAged(dir, tmpKeyName(), ctx.clock, TEMPORARY_GRACE_SECONDS - 1);
    // Written by a process whose clock runs ahead: never old enough yet.
    const future = fileAged(dir, tmpKeyName(), ctx.clock, -600);

    const removed = await sweepTemporaryKeyFiles(ctx);
    expect(removed.sort()).toEqual([stale, exactly].map((p) => p.split('/').at(-1)!).sort());
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(exactly)).toBe(false);
    expect(existsSync(young)).toBe(true);
    expect(existsSync(future)).toBe(true);

    // A second later the young one has reached the grace period.
    ctx.clock.advance(1000);
    expect(await sweepTemporaryKeyFiles(ctx)).toEqual([young.split('/').at(-1)!]);
    expect(existsSync(young)).toBe(false);
    expect(existsSync(future)).toBe(true);
  });

  test('the file an interrupted atomic key write really leaves behind is recognised and swept', async () => {
    ctx = await testContext();
    const dir = join(ctx.dir, 'keys');
    // The rename cannot happen (a non-empty directory holds the key's name), as if the process had died.
    mkdirSync(join(dir, `${KID}.jwk.json`, 'x'), { recursive: true });
    await expect(files.writePrivateAtomic(join(dir, `${KID}.jwk.json`), '{"d":"private"}')).rejects.toThrow();
    const [leftover, ...more] = readdirSync(dir).filter((f) => f.endsWith('.tmp'));
    expect(more).toEqual([]);
    expect(leftover).toStartWith(`${KID}.jwk.json.`);
    const t = unix(ctx.clock) - TEMPORARY_GRACE_SECONDS;
    utimesSync(join(dir, leftover!), t, t);
    expect(await sweepTemporaryKeyFiles(ctx)).toEqual([leftover!]);
    expect(existsSync(join(dir, leftover!))).toBe(false);
  });

  test('nothing but a temporary key or secret file is ever deleted, however old', async () => {
    ctx = await testContext();
    const dir = join(ctx.dir, 'keys');
    const { instanceSecret } = await import('../../src/keys/instance-secrets.ts');
    await instanceSecret(ctx.config, 'pairwise', '');
    await instanceSecret(ctx.config, 'webhook-secrets', '');
    const active = ctx.keys.store.active()!.kid;
    const old = TEMPORARY_GRACE_SECONDS * 24 * 365;
    for (const name of readdirSync(dir)) {
      const t = unix(ctx.clock) - old;
      utimesSync(join(dir, name), t, t);
    }
    const keep = [
      // Whole key files and instance secrets.
      join(dir, `${active}.jwk.json`),
      join(dir, 'pairwise.secret'),
      join(dir, 'webhook-secrets.secret'),
      // Look-alikes that an atomic key or secret write never produces.
      fileAged(dir, `other.secret.${uuid()}.tmp`, ctx.clock, old),
      fileAged(dir, `pairwise.secret.${uuid()}.tmp.bak`, ctx.clock, old),
      fileAged(dir, `${KID}.jwk.json.1234.tmp`, ctx.clock, old),
      fileAged(dir, `${KID}.jwk.json.${uuid()}.tmp.bak`, ctx.clock, old),
      fileAged(dir, `${KID}.jwk.json.${uuid().toUpperCase()}.tmp`, ctx.clock, old),
      fileAged(dir, `.jwk.json.${uuid()}.tmp`, ctx.clock, old),
      fileAged(dir, 'backup.tmp', ctx.clock, old),
      // Beside the keys directory, not in it.
      fileAged(ctx.dir, tmpKeyName(), ctx.clock, old),
    ];
    // A directory with a temporary key file's name is not a file left by a write.
    const dirLike = join(dir, tmpKeyName());
    mkdirSync(dirLike);
    const before = readdirSync(dir).sort();
    // An instance secret's own unrenamed write holds a secret too: it goes, as key writes do.
    const secretWrites = [`pairwise.secret.${uuid()}.tmp`, `webhook-secrets.secret.${uuid()}.tmp`];
    for (const name of secretWrites) fileAged(dir, name, ctx.clock, old);

    expect((await sweepTemporaryKeyFiles(ctx)).sort()).toEqual(secretWrites.sort());
    expect(readdirSync(dir).sort()).toEqual(before);
    for (const path of [...keep, dirLike]) expect(existsSync(path)).toBe(true);
    // The active key still publishes and signs.
    expect(
      JSON.parse(await ctx.keys.jwksBody())
        .keys.map((k: { kid: string }) => k.kid)
        .sort(),
    ).toEqual(
      ctx.keys.store
        .actives()
        .map((k) => k.kid)
        .sort(),
    );
    expect((await ctx.keys.signingKey()).kid).toBe(active);
    // And the file API refuses to delete anything else by name.
    await expect(ctx.keys.files.removeTemporary('pairwise.secret')).rejects.toThrow(
      'not a temporary key file',
    );
    await expect(ctx.keys.files.removeTemporary(`${active}.jwk.json`)).rejects.toThrow();
    expect(existsSync(join(dir, 'pairwise.secret'))).toBe(true);
  });

  test('the key job sweeps them every run and logs what it removed', async () => {
    ctx = await testContext();
    const dir = join(ctx.dir, 'keys');
    const job = keysJobs.find((j) => j.name === 'keys.rotate')!;
    const { lines, log } = keptLog();
    const name = fileAged(dir, tmpKeyName(), ctx.clock, 2 * TEMPORARY_GRACE_SECONDS)
      .split('/')
      .at(-1)!;
    const young = fileAged(dir, tmpKeyName(), ctx.clock, 60);

    await job.run({ ...ctx, log });
    expect(existsSync(join(dir, name))).toBe(false);
    expect(existsSync(young)).toBe(true);
    const swept = lines.filter((l) => l.msg === 'removed temporary key files left by an interrupted write');
    expect(swept).toEqual([expect.objectContaining({ level: 'warn', files: [name] })]);
    // The log names files, never their contents.
    expect(JSON.stringify(lines)).not.toContain('private');

    // A run with nothing to sweep says nothing about it.
    await job.run({ ...ctx, log });
    expect(lines.filter((l) => l.msg === swept[0]!.msg)).toHaveLength(1);
  });

  test('a server starting after a crash removes them', async () => {
    const { dir, cleanup } = tempDir('verity-tmpkeys');
    const clock = fixedClock(Date.UTC(2026, 5, 1, 12));
    const keysDir = join(dir, 'keys');
    mkdirSync(keysDir, { recursive: true, mode: 0o700 });
    const leftover = fileAged(keysDir, tmpKeyName(), clock, 2 * TEMPORARY_GRACE_SECONDS);
    const { lines, log } = keptLog();
    const server = await startServer(parseConfig(testToml(dir)), {
      clock,
      log,
      jobs: true,
      port: await freePort(),
    });
    try {
      // The key job runs once at start without waiting for its schedule; give it a bounded moment.
      for (let i = 0; i < 100 && existsSync(leftover); i++) await Bun.sleep(20);
      expect(existsSync(leftover)).toBe(false);
      for (let i = 0; i < 50 && !lines.some((l) => l.level === 'warn'); i++) await Bun.sleep(20);
      expect(lines).toContainEqual(
        expect.objectContaining({
          msg: 'removed temporary key files left by an interrupted write',
          files: [leftover.split('/').at(-1)],
        }),
      );
      expect(server.ctx.keys.hasActive()).toBe(true);
    } finally {
      await server.stop();
      cleanup();
    }
  });
});
