import { afterEach, expect, test } from 'bun:test';
import { PERSONAS, seedPersonas } from '../../src/identity/personas.ts';
import { CHECK_METHODS } from '../../src/persons/check-methods.ts';
import { importPersons } from '../../src/persons/import.ts';
import { createPersonStore } from '../../src/persons/person.store.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { jsonl, record } from '../persons/fixtures.ts';

let ctx: TestContext;
afterEach(() => ctx?.cleanup());

const count = (table: string) =>
  ctx.db.sql.prepare<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).get()!.n;

test('the six personas are seeded at start with stable ids, idempotently', async () => {
  ctx = await testContext();
  const ids = ctx.db.sql
    .prepare<{ id: string; environment: string }>('SELECT id, environment FROM persons ORDER BY id')
    .all();
  expect(ids.map((r) => r.id)).toEqual(
    ['ada', 'ben', 'cleo', 'dan', 'eve', 'finn'].map((k) => `psn_sandbox_${k}`),
  );
  expect(new Set(ids.map((r) => r.environment))).toEqual(new Set(['sandbox']));
  const before = [
    count('persons'),
    count('person_emails'),
    count('person_phones'),
    count('identity_documents'),
  ];
  // A consent referencing a persona survives re-seeding (upsert, never delete).
  createPersonStore(ctx.db).update('psn_sandbox_ada', { name: 'Changed' });
  seedPersonas(ctx.db);
  seedPersonas(ctx.db);
  expect([
    count('persons'),
    count('person_emails'),
    count('person_phones'),
    count('identity_documents'),
  ]).toEqual(before);
  expect(
    ctx.db.sql.prepare<{ name: string }>("SELECT name FROM persons WHERE id = 'psn_sandbox_ada'").get()!.name,
  ).toBe('Ada Sandbox');
});

test('persona data matches DESIGN.md §6', async () => {
  ctx = await testContext();
  const person = (k: string) =>
    ctx.db.sql.prepare<Record<string, any>>('SELECT * FROM persons WHERE id = ?').get(`psn_sandbox_${k}`)!;
  const docs = (k: string) =>
    ctx.db.sql
      .prepare<Record<string, any>>(
        'SELECT * FROM identity_documents WHERE person_id = ? ORDER BY "primary" DESC',
      )
      .all(`psn_sandbox_${k}`)
      .map((d) => [d.document_type, d.issuing_country, d.validity_status, d.verified]);
  const emails = (k: string) =>
    ctx.db.sql
      .prepare<{ verified: number }>('SELECT * FROM person_emails WHERE person_id = ?')
      .all(`psn_sandbox_${k}`);
  const phones = (k: string) =>
    ctx.db.sql.prepare('SELECT * FROM person_phones WHERE person_id = ?').all(`psn_sandbox_${k}`);

  expect(person('ada')).toMatchObject({ name: 'Ada Sandbox', assurance_level: 'high', identity_verified: 1 });
  expect(docs('ada')).toEqual([['passport', 'DE', 'valid', 1]]);
  expect(emails('ada')).toHaveLength(2);
  expect(emails('ada').every((e) => e.verified === 1)).toBe(true);
  expect(phones('ada')).toHaveLength(1);
  expect(person('ada').photo).toStartWith('data:image/jpeg;base64,/9j/');

  expect(person('ben').assurance_level).toBe('substantial');
  expect(docs('ben')).toEqual([
    ['id_card', 'FR', 'valid', 1],
    ['passport', 'FR', 'expired', 1],
  ]);

  expect(person('cleo')).toMatchObject({ assurance_level: 'none', identity_verified: 0 });
  expect(docs('cleo')).toEqual([]);
  expect(emails('cleo')).toHaveLength(1);
  expect(phones('cleo')).toHaveLength(0);

  expect(person('dan')).toMatchObject({
    assurance_level: 'substantial',
    identity_verified: 1,
    birthdate: '2010-06-01',
  });
  expect(docs('dan')).toEqual([['id_card', 'NL', 'valid', 1]]);

  for (const k of ['eve', 'finn']) {
    expect(person(k).identity_verified).toBe(1);
    expect(docs(k)).toHaveLength(1);
    expect(person(k).birthdate < '2008-01-01').toBe(true);
  }
  for (const p of PERSONAS) {
    if (p.photo) expect(p.photo.length).toBeLessThanOrEqual(64 * 1024);
    expect(person(p.key).face_template_ref).toBe(`sandbox:${p.key}`);
  }
});

test('persona documents carry a date of issue and a registered check method, restored by re-seeding', async () => {
  ctx = await testContext();
  const rows = () =>
    ctx.db.sql
      .prepare<{
        id: string;
        issue_date: string;
        expiry_date: string;
        verified_at: number;
        check_method: string;
      }>(
        `SELECT d.id, issue_date, expiry_date, verified_at, check_method
         FROM identity_documents d JOIN persons p ON p.id = d.person_id WHERE p.environment = 'sandbox'`,
      )
      .all();
  expect(rows()).toHaveLength(6);
  for (const d of rows()) {
    // Issued before it was checked, and before it expires, as import demands of real documents.
    expect(d.issue_date < d.expiry_date).toBe(true);
    expect(d.issue_date <= new Date(d.verified_at * 1000).toISOString().slice(0, 10)).toBe(true);
    expect(CHECK_METHODS).toContain(d.check_method as never);
  }
  const ada =
    "SELECT issue_date, check_method FROM identity_documents WHERE id = 'doc_sandbox_ada_passport_de'";
  expect(ctx.db.sql.prepare(ada).get()).toEqual({ issue_date: '2021-03-15', check_method: 'vcrypt' });
  ctx.db.sql
    .prepare(
      "UPDATE identity_documents SET issue_date = NULL, check_method = 'kbv' WHERE id = 'doc_sandbox_ada_passport_de'",
    )
    .run();
  seedPersonas(ctx.db);
  expect(ctx.db.sql.prepare(ada).get()).toEqual({ issue_date: '2021-03-15', check_method: 'vcrypt' });
});

// `verity migrate` seeds no personas, so an import can run before the first start seeds them.
test('seeding never takes an address from a production person who holds it', async () => {
  ctx = await testContext();
  const ada = PERSONAS.find((p) => p.key === 'ada')!;
  const address = ada.emails[0]!.email;
  ctx.db.sql.prepare('DELETE FROM person_emails WHERE email = ?').run(address);
  await importPersons(ctx, jsonl(record({ emails: [{ email: address, verified: true }] })));
  seedPersonas(ctx.db);
  const store = createPersonStore(ctx.db);
  const production = store.byExternalId('production', 'ext-1')!;
  expect(store.emails(production.id).map((e) => e.email)).toEqual([address]);
  expect(store.emails(ada.personId).map((e) => e.email)).not.toContain(address);
});
