import { afterEach, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Db, openDb } from '../../src/db/open.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { subscribeTestEndpoint } from '../helpers/apps.ts';
import { FleetBrowser, signInForCode } from './browser.ts';
import { createClient, type Fleet, startFleet } from './fleet.ts';

/**
 * `verity persons disable` disables the person and ends their consents, with `consent.revoked`, in one
 * transaction: killed at any point, it leaves both done or neither, never a disabled person whose
 * consents are still in force and whose applications were not told.
 */
const PERSON = 'psn_sandbox_ada';
const main = join(import.meta.dir, '..', '..', 'src', 'main.ts');

let fleet: Fleet | undefined;
const dbs: Db[] = [];
let cli: ReturnType<typeof Bun.spawn> | undefined;
afterEach(async () => {
  cli?.kill('SIGKILL');
  await cli?.exited;
  for (const db of dbs.splice(0)) db.close();
  await fleet?.stop();
  fleet = undefined;
});

test('persons disable killed midway has done nothing; run again, it does both', async () => {
  fleet = await startFleet(1);
  const client = await createClient(fleet, 'Disable');
  const db = await openDb(fleet.dbUrl);
  dbs.push(db);
  subscribeTestEndpoint({ db, clock: systemClock }, client.applicationId);
  await signInForCode(new FleetBrowser(fleet.urls, fleet.baseUrl, '10.5.0.1'), client, { persona: 'ada' });
  const state = () => ({
    person: db.sql.prepare<{ status: string }>('SELECT status FROM persons WHERE id = ?').get(PERSON)!.status,
    consent: db.sql
      .prepare<{ status: string }>('SELECT status FROM consents WHERE person_id = ?')
      .get(PERSON)!.status,
    revoked: db.sql
      .prepare<{ n: number }>("SELECT count(*)::int AS n FROM webhook_events WHERE type = 'consent.revoked'")
      .get()!.n,
  });
  const disable = () =>
    Bun.spawn([process.execPath, main, 'persons', 'disable', PERSON, '--config', fleet!.configPath], {
      stdout: 'pipe',
      stderr: 'pipe',
    });

  // The consent's row held elsewhere: the command waits for it, and is killed while it waits.
  const holder = await openDb(fleet.dbUrl);
  dbs.push(holder);
  holder.sql.exec('BEGIN');
  holder.sql.prepare('SELECT id FROM consents WHERE person_id = ? FOR UPDATE').all(PERSON);
  cli = disable();
  await Bun.sleep(2000);
  expect(state()).toEqual({ person: 'active', consent: 'active', revoked: 0 });
  cli.kill('SIGKILL');
  await cli.exited;
  holder.sql.exec('ROLLBACK');
  expect(state()).toEqual({ person: 'active', consent: 'active', revoked: 0 });

  cli = disable();
  expect(await cli.exited).toBe(0);
  expect(state()).toEqual({ person: 'disabled', consent: 'revoked', revoked: 1 });
}, 90_000);
