import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { argon2id } from 'hash-wasm';
import { createApp } from '../../src/app.ts';
import { listAudit } from '../../src/audit/audit.store.ts';
import { verifyPassword } from '../../src/crypto/password.ts';
import { ValidationError } from '../../src/errors.ts';
import { importPersons } from '../../src/persons/import.ts';
import { cli } from '../helpers/cli.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { Browser, csrfOf, location } from '../identity/flow-helpers.ts';
import { jsonl, record, writeConfig, writeFile } from './fixtures.ts';

let ctx: TestContext;
let config: string;
beforeEach(async () => {
  ctx = await testContext();
  config = writeConfig(ctx.dir);
});
afterEach(() => ctx.cleanup());

/** Rows belonging to production persons (sandbox personas are seeded into the same tables). */
const count = (table: string): number =>
  (
    ctx.db.sql
      .prepare(
        table === 'persons'
          ? "SELECT count(*) AS n FROM persons WHERE environment = 'production'"
          : `SELECT count(*) AS n FROM ${table} t JOIN persons p ON p.id = t.person_id WHERE p.environment = 'production'`,
      )
      .get() as { n: number }
  ).n;

async function importError(text: string): Promise<ValidationError> {
  try {
    await importPersons(ctx, text);
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error('the import was accepted');
}

describe('persons import', () => {
  test('the documented sample file imports, and importing it again updates without duplicating', async () => {
    const sample = join(import.meta.dir, '../../docs/persons.sample.jsonl');
    const first = await cli('persons', 'import', sample, '--json', '--config', config);
    expect(first.code).toBe(0);
    expect(first.json).toEqual({ imported: 2, updated: 0 });
    const rows = [
      count('persons'),
      count('person_emails'),
      count('person_phones'),
      count('identity_documents'),
    ];

    const again = await cli('persons', 'import', sample, '--json', '--config', config);
    expect(again.json).toEqual({ imported: 0, updated: 2 });
    expect([
      count('persons'),
      count('person_emails'),
      count('person_phones'),
      count('identity_documents'),
    ]).toEqual(rows);
    expect(rows).toEqual([2, 3, 1, 4]);

    const human = await cli('persons', 'import', sample, '--config', config);
    expect(human.stdout).toBe('imported 0, updated 2\n');
  });

  test('one bad line among good ones writes nothing, and every error names its line and field', async () => {
    const file = writeFile(
      ctx.dir,
      'mixed.jsonl',
      jsonl(
        record({ externalId: 'good-1', emails: [{ email: 'good1@example.com', verified: true }] }),
        record({
          externalId: 'bad-2',
          emails: [{ email: 'not-an-email', verified: true }],
          colour: 'blue',
        }),
        '',
        record({ externalId: 'bad-4', emails: [], birthdate: '2999-01-01', nationalities: ['XX'] }),
        '{"externalId": ',
        record({ externalId: 'good-6', emails: [{ email: 'good6@example.com', verified: true }] }),
      ),
    );
    const r = await cli('persons', 'import', file, '--json', '--config', config);
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('VALIDATION_FAILED');
    expect(r.json.error.message).toContain('nothing was imported');
    const paths = r.json.error.fields.map((f: { path: string }) => f.path);
    expect(paths).toContain('line 2: emails.0.email');
    expect(paths).toContain('line 2: colour');
    expect(paths).toContain('line 4: birthdate');
    expect(paths).toContain('line 4: nationalities.0');
    expect(paths).toContain('line 5');
    expect(paths.some((p: string) => p.startsWith('line 1') || p.startsWith('line 6'))).toBe(false);
    expect(r.json.error.fields.find((f: { path: string }) => f.path === 'line 2: colour').message).toBe(
      'Unknown field',
    );
    expect(count('persons')).toBe(0);
    expect(count('person_emails')).toBe(0);
    expect(count('identity_documents')).toBe(0);

    const human = await cli('persons', 'import', file, '--config', config);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('line 2: emails.0.email: Invalid email');
    expect(human.stderr).toContain('line 4: birthdate: Must not be in the future');
  });

  test('missing required fields are reported as Required, each with its path', async () => {
    const { givenName: _g, documents: _d, assuranceLevel: _a, ...rest } = record();
    const e = await importError(jsonl(rest, [1, 2], 'null'));
    expect(e.fields).toContainEqual({ path: 'line 1: givenName', message: 'Required' });
    expect(e.fields).toContainEqual({ path: 'line 1: documents', message: 'Required' });
    expect(e.fields).toContainEqual({ path: 'line 1: assuranceLevel', message: 'Required' });
    expect(e.fields.some((f) => f.path === 'line 2')).toBe(true);
    expect(e.fields.some((f) => f.path === 'line 3')).toBe(true);
  });

  test('field rules: dates, countries, phones, primaries, photo, passwords and documents', async () => {
    const doc = (record().documents as Record<string, unknown>[])[0]!;
    const cases: [Record<string, unknown>, string][] = [
      [{ birthdate: '1990-02-30' }, 'birthdate'],
      [{ birthdate: '12/04/1988' }, 'birthdate'],
      [{ nationalities: ['DEU'] }, 'nationalities.0'],
      [{ nationalities: ['de'] }, 'nationalities.0'],
      [{ nationalities: ['DE', 'DE'] }, 'nationalities'],
      [{ phones: [{ phone: '01701234567', verified: true }] }, 'phones.0.phone'],
      [
        {
          emails: [
            { email: 'a@example.com', verified: true },
            { email: 'b@example.com', verified: true },
          ],
        },
        'emails',
      ],
      [
        {
          emails: [
            { email: 'a@example.com', verified: true, primary: true },
            { email: 'b@example.com', verified: true, primary: true },
          ],
        },
        'emails',
      ],
      [
        {
          emails: [
            { email: 'a@example.com', verified: true, primary: true },
            { email: 'A@example.com', verified: false },
          ],
        },
        'emails.1.email',
      ],
      [{ emails: [{ email: 'a@example.com' }] }, 'emails.0.verified'],
      [{ photo: 'data:image/png;base64,iVBORw0KGgo=' }, 'photo'],
      [{ photo: 'data:image/jpeg;base64,iVBORw0KGgo=' }, 'photo'],
      [{ photo: `data:image/jpeg;base64,/9j/${'A'.repeat(70_000)}` }, 'photo'],
      [{ photoVerified: true }, 'photoVerified'],
      [
        {
          password: 'secret-one-two',
          passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
        },
        'password',
      ],
      [{ passwordHash: '$2b$10$abcdefghijklmnopqrstuv' }, 'passwordHash'],
      // Too costly to check (each failed sign-in would pay it), or too cheap to resist cracking.
      [
        { passwordHash: '$argon2id$v=19$m=4194304,t=1000,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA' },
        'passwordHash',
      ],
      [{ passwordHash: '$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA' }, 'passwordHash'],
      [{ password: 'short' }, 'password'],
      [{ assuranceLevel: 'medium' }, 'assuranceLevel'],
      [{ documents: [{ ...doc, type: 'visa' }] }, 'documents.0.type'],
      [{ documents: [{ ...doc, issuingCountry: 'ZZ' }] }, 'documents.0.issuingCountry'],
      [{ documents: [{ ...doc, validityStatus: 'lost' }] }, 'documents.0.validityStatus'],
      [{ documents: [{ ...doc, expiryDate: '2031-13-01' }] }, 'documents.0.expiryDate'],
      [{ documents: [{ ...doc, issueDate: '2021-02-29' }] }, 'documents.0.issueDate'],
      [
        { documents: [{ ...doc, issueDate: '2099-01-01', expiryDate: '2109-01-01' }] },
        'documents.0.issueDate',
      ],
      [{ documents: [{ ...doc, issueDate: '2031-09-01' }] }, 'documents.0.issueDate'],
      [{ documents: [{ ...doc, issueDate: '2026-01-16' }] }, 'documents.0.verifiedAt'],
      [{ documents: [{ ...doc, checkMethod: 'pipp' }] }, 'documents.0.checkMethod'],
      [{ documents: [{ ...doc, checkMethod: 'VCRYPT' }] }, 'documents.0.checkMethod'],
      [{ documents: [{ ...doc, verifiedAt: '2999-01-01T00:00:00Z' }] }, 'documents.0.verifiedAt'],
      // Printed to the operator's terminal: a newline would forge a row, an escape drive the terminal.
      [{ externalId: 'ext-1\npsn_FAKE  active  high  ceo' }, 'externalId'],
      [{ name: 'Maria\u001b]0;owned\u0007' }, 'name'],
      [{ documents: [{ ...doc, displayName: 'Passport\u001b[2J' }] }, 'documents.0.displayName'],
      [{ documents: [{ ...doc, number: '' }] }, 'documents.0.number'],
      [{ documents: [{ ...doc, shelf: 3 }] }, 'documents.0.shelf'],
      [{ documents: [doc, { ...doc, number: 'c01x 00t47' }] }, 'documents.1'],
      [
        {
          documents: [
            { ...doc, primary: true },
            { ...doc, number: 'X1', primary: true },
          ],
        },
        'documents',
      ],
    ];
    for (const [overrides, path] of cases) {
      const e = await importError(jsonl(record(overrides)));
      expect({ overrides, paths: e.fields.map((f) => f.path) }).toEqual({
        overrides,
        paths: expect.arrayContaining([`line 1: ${path}`]),
      });
    }
    expect(count('persons')).toBe(0);
  });

  test("an unknown field's name is quoted in the error with its control characters escaped", async () => {
    const file = writeFile(ctx.dir, 'bad.jsonl', jsonl(record({ 'x\u001b[2J\u001b[H': 1 })));
    const r = await cli('persons', 'import', file, '--config', config);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).toContain('x\\u001b[2J\\u001b[H');
  });

  test('a duplicate external id or a shared email within one file is an error on the later line', async () => {
    const e = await importError(
      jsonl(
        record({ externalId: 'a', emails: [{ email: 'one@example.com', verified: true }] }),
        record({ externalId: 'b', emails: [{ email: 'ONE@example.com', verified: true }] }),
        record({ externalId: 'a', emails: [{ email: 'three@example.com', verified: true }] }),
      ),
    );
    expect(e.fields).toEqual([
      { path: 'line 2: emails.0.email', message: 'Also used on line 1' },
      { path: 'line 3: externalId', message: 'Same externalId as line 1' },
    ]);
    expect(count('persons')).toBe(0);
  });

  test('an email that already belongs to another person is refused; the same person may keep it', async () => {
    await importPersons(ctx, jsonl(record({ externalId: 'first' })));
    const e = await importError(
      jsonl(
        record({ externalId: 'new', emails: [{ email: 'fresh@example.com', verified: true }] }),
        record({ externalId: 'second', emails: [{ email: 'Maria@Example.com', verified: true }] }),
      ),
    );
    expect(e.fields).toEqual([{ path: 'line 2: emails.0.email', message: 'Already used by another person' }]);
    expect(count('persons')).toBe(1);
    // The owner re-importing its own email is an update, not a conflict.
    expect(await importPersons(ctx, jsonl(record({ externalId: 'first' })))).toEqual({
      imported: 0,
      updated: 1,
    });
  });

  test('re-import updates the person in place, replaces emails and phones, and never duplicates', async () => {
    await importPersons(ctx, jsonl(record(), record({ externalId: 'ext-2', emails: [], phones: [] })));
    const id = (
      ctx.db.sql.prepare("SELECT id FROM persons WHERE external_id = 'ext-1'").get() as { id: string }
    ).id;
    expect(id).toMatch(/^psn_/);
    ctx.clock.advance(60_000);
    const result = await importPersons(
      ctx,
      jsonl(
        record({
          familyName: 'Meyer',
          assuranceLevel: 'substantial',
          emails: [
            { email: 'maria.meyer@example.com', verified: true, primary: true },
            { email: 'maria@example.com', verified: false },
          ],
          phones: [],
        }),
        record({ externalId: 'ext-3', emails: [{ email: 'x3@example.com', verified: false }] }),
      ),
    );
    expect(result).toEqual({ imported: 1, updated: 1 });
    expect(count('persons')).toBe(3);
    const row = ctx.db.sql.prepare('SELECT * FROM persons WHERE id = ?').get(id) as Record<string, unknown>;
    expect(row).toMatchObject({ family_name: 'Meyer', name: 'Maria Meyer', assurance_level: 'substantial' });
    expect(row.updated_at).toBe((row.created_at as number) + 60);
    const emails = ctx.db.sql
      .prepare('SELECT email, verified, "primary" FROM person_emails WHERE person_id = ? ORDER BY id')
      .all(id);
    expect(emails).toEqual([
      { email: 'maria.meyer@example.com', verified: 1, primary: 1 },
      { email: 'maria@example.com', verified: 0, primary: 0 },
    ]);
    expect(ctx.db.sql.prepare('SELECT count(*) AS n FROM person_phones WHERE person_id = ?').get(id)).toEqual(
      {
        n: 0,
      },
    );
    const audit = listAudit(ctx.db, { action: 'person.import' });
    expect(audit.length).toBe(4);
    expect(audit[0]!.actor).toBe('cli');
  });

  test('a plaintext password is stored only as argon2id and never echoed; a given hash is kept as is', async () => {
    const password = 'Plaintext-Passw0rd-Only-Once';
    const file = writeFile(
      ctx.dir,
      'pw.jsonl',
      jsonl(
        record({ password }),
        record({
          externalId: 'ext-2',
          emails: [],
          passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
        }),
      ),
    );
    const r = await cli('persons', 'import', file, '--json', '--config', config);
    expect(r.code).toBe(0);
    const hash = (
      ctx.db.sql.prepare("SELECT password_hash AS h FROM persons WHERE external_id = 'ext-1'").get() as {
        h: string;
      }
    ).h;
    expect(hash).toStartWith('$argon2id$');
    expect(hash).not.toContain(password);
    expect(await verifyPassword(password, hash)).toBe(true);
    expect(
      ctx.db.sql.prepare("SELECT password_hash AS h FROM persons WHERE external_id = 'ext-2'").get(),
    ).toEqual({
      h: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
    });
    const dump = JSON.stringify(ctx.db.sql.prepare('SELECT * FROM audit_log').all());
    expect(dump).not.toContain(password);
    expect(dump).not.toContain('argon2id');
    expect(r.stdout + r.stderr).not.toContain(password);

    // A later record without a password leaves the stored one alone.
    await importPersons(ctx, jsonl(record({ givenName: 'Mia' })));
    expect(
      ctx.db.sql.prepare("SELECT password_hash AS h FROM persons WHERE external_id = 'ext-1'").get(),
    ).toEqual({
      h: hash,
    });

    // A rejected file never shows the password it carried.
    const bad = writeFile(ctx.dir, 'bad.jsonl', jsonl(record({ password, birthdate: 'never' })));
    const rejected = await cli('persons', 'import', bad, '--json', '--config', config);
    expect(rejected.code).toBe(1);
    expect(rejected.stdout + rejected.stderr).not.toContain(password);
  });

  /** Signs the imported person in on the account page; returns whether that browser is still signed in. */
  async function signInToAccount(password: string) {
    const browser = new Browser(createApp(ctx));
    const signin = await browser.post('/identity/account/signin', {
      csrf_token: csrfOf(await (await browser.get('/identity/account')).text()),
      email: 'maria@example.com',
      password,
    });
    expect(location(signin)).toBe('/identity/account');
    return async () =>
      (await (await browser.get('/identity/account')).text()).includes('Signed in as Maria Schmidt');
  }
  const storedHash = () =>
    (
      ctx.db.sql.prepare("SELECT password_hash AS h FROM persons WHERE external_id = 'ext-1'").get() as {
        h: string;
      }
    ).h;

  test("a changed password signs out the person's sessions; the same password keeps them", async () => {
    await importPersons(ctx, jsonl(record({ password: 'old password 123' })));
    const signedIn = await signInToAccount('old password 123');
    expect(await signedIn()).toBe(true);

    // The upstream file carries the same password again, or the same hash: nothing changed.
    const hash = storedHash();
    await importPersons(ctx, jsonl(record({ password: 'old password 123' })));
    await importPersons(ctx, jsonl(record({ passwordHash: hash })));
    expect(storedHash()).toBe(hash);
    expect(await signedIn()).toBe(true);

    // Reset upstream: whoever signed in with the old password is signed out.
    await importPersons(ctx, jsonl(record({ password: 'new password 456' })));
    expect(await signedIn()).toBe(false);
  });

  test("an upstream hash replaced at sign-in with Verity's own is the same password at the next import", async () => {
    // The upstream system's own argon2id hash, made with other parameters than Verity's.
    const upstream = (password: string) =>
      argon2id({
        password,
        salt: new Uint8Array(16).fill(7),
        parallelism: 1,
        iterations: 3,
        memorySize: 12288,
        hashLength: 32,
        outputType: 'encoded',
      });
    const old = await upstream('old password 123');
    await importPersons(ctx, jsonl(record({ passwordHash: old })));
    const signedIn = await signInToAccount('old password 123');
    // The sign-in replaced the upstream hash with one of Verity's parameters.
    const rehashed = storedHash();
    expect(rehashed).not.toBe(old);

    // The nightly file carries the same upstream hash: nothing changed, Verity's hash stays.
    await importPersons(ctx, jsonl(record({ passwordHash: old })));
    expect(storedHash()).toBe(rehashed);
    expect(await signedIn()).toBe(true);

    // Reset upstream: a new hash signs the person out.
    await importPersons(ctx, jsonl(record({ passwordHash: await upstream('new password 456') })));
    expect(await signedIn()).toBe(false);
  });

  test('documents keep their ids across re-imports; a dropped document is disabled and comes back with its id', async () => {
    const passport = (record().documents as Record<string, unknown>[])[0]!;
    const idCard = {
      type: 'id_card',
      issuingCountry: 'DE',
      number: 'L01X00T47',
      expiryDate: '2029-03-01',
      validityStatus: 'valid',
      verified: true,
      primary: true,
    };
    await importPersons(ctx, jsonl(record({ documents: [passport, idCard] })));
    const docs = () =>
      ctx.db.sql
        .prepare(
          `SELECT d.id, document_type, document_number, d.status, "primary", share_enabled, proof_status, attestation_id,
             validity_status, display_name
           FROM identity_documents d JOIN persons p ON p.id = d.person_id
           WHERE p.external_id = 'ext-1' AND p.environment = 'production' ORDER BY document_type`,
        )
        .all() as Record<string, any>[];
    const before = docs();
    expect(before.map((d) => d.id)).toEqual([expect.stringMatching(/^doc_/), expect.stringMatching(/^doc_/)]);
    expect(before.map((d) => d.attestation_id)).toEqual([
      expect.stringMatching(/^att_/),
      expect.stringMatching(/^att_/),
    ]);
    expect(before.find((d) => d.document_type === 'id_card')).toMatchObject({
      primary: 1,
      display_name: 'Identity card (Germany)',
    });

    // The person turned sharing off for the passport on their account page.
    const passportId = before.find((d) => d.document_type === 'passport')!.id;
    ctx.db.sql.prepare('UPDATE identity_documents SET share_enabled = 0 WHERE id = ?').run(passportId);

    // Same passport with spacing and case changed, now expired; the id card is gone.
    await importPersons(
      ctx,
      jsonl(record({ documents: [{ ...passport, number: 'c01x 00t47', validityStatus: 'expired' }] })),
    );
    const after = docs();
    expect(after.length).toBe(2);
    const p = after.find((d) => d.id === passportId)!;
    expect(p).toMatchObject({ status: 'active', validity_status: 'expired', share_enabled: 0, primary: 1 });
    expect(p.attestation_id).toBe(before.find((d) => d.id === passportId)!.attestation_id);
    expect(after.find((d) => d.document_type === 'id_card')).toMatchObject({
      id: before.find((d) => d.document_type === 'id_card')!.id,
      status: 'disabled',
      primary: 0,
      proof_status: 'revoked',
    });

    await importPersons(ctx, jsonl(record({ documents: [passport, { ...idCard, shareEnabled: false }] })));
    const back = docs();
    expect(back.map((d) => d.id).sort()).toEqual(before.map((d) => d.id).sort());
    expect(back.find((d) => d.document_type === 'id_card')).toMatchObject({
      status: 'active',
      proof_status: 'active',
      share_enabled: 0,
      primary: 1,
    });
  });

  test("a document's date of issue and check method are stored, and cleared when a re-import leaves them out", async () => {
    const doc = (record().documents as Record<string, unknown>[])[0]!;
    const stored = () =>
      ctx.db.sql
        .prepare(
          `SELECT issue_date, check_method FROM identity_documents d JOIN persons p ON p.id = d.person_id
           WHERE p.external_id = 'ext-1' AND p.environment = 'production'`,
        )
        .get();
    // Issued on the day it was checked, in the check's own time zone (the 14th in UTC).
    const sameDay = {
      ...doc,
      issueDate: '2026-01-15',
      verifiedAt: '2026-01-15T00:30:00+01:00',
      checkMethod: 'vcrypt',
    };
    await importPersons(ctx, jsonl(record({ documents: [sameDay] })));
    expect(stored()).toEqual({ issue_date: '2026-01-15', check_method: 'vcrypt' });
    await importPersons(ctx, jsonl(record({ documents: [{ ...doc, issueDate: '2021-09-01' }] })));
    expect(stored()).toEqual({ issue_date: '2021-09-01', check_method: null });
    await importPersons(ctx, jsonl(record()));
    expect(stored()).toEqual({ issue_date: null, check_method: null });
  });

  test('a missing or unreadable file is a failure, a missing argument a usage error', async () => {
    const missing = await cli('persons', 'import', join(ctx.dir, 'nope.jsonl'), '--config', config);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read');
    const usage = await cli('persons', 'import', '--config', config);
    expect(usage.code).toBe(2);
  });
});
