import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { listAudit } from '../../src/audit/audit.store.ts';
import { attestationReference, documentReference } from '../../src/documents/reference.ts';
import { importPersons } from '../../src/persons/import.ts';
import { createTestApp } from '../helpers/apps.ts';
import { cli } from '../helpers/cli.ts';
import { type TestContext, testContext } from '../helpers/context.ts';
import { jsonl, record, writeConfig } from './fixtures.ts';

let ctx: TestContext;
let config: string;
let mariaId: string;
beforeEach(async () => {
  ctx = await testContext();
  config = writeConfig(ctx.dir);
  await importPersons(
    ctx,
    jsonl(
      record({
        password: 'Maria-Passw0rd-Secret',
        documents: [
          {
            ...(record().documents as Record<string, unknown>[])[0],
            issueDate: '2021-09-01',
            checkMethod: 'vcrypt',
          },
        ],
      }),
      record({
        externalId: 'ext-2',
        givenName: 'Jean',
        familyName: 'Dupont',
        emails: [{ email: 'jean@example.fr', verified: false }],
        phones: [],
        documents: [],
        assuranceLevel: 'low',
      }),
    ),
  );
  mariaId = (ctx.db.sql.prepare("SELECT id FROM persons WHERE external_id = 'ext-1'").get() as { id: string })
    .id;
});
afterEach(() => ctx.cleanup());

describe('persons list, show and disable', () => {
  test('list shows production persons with their primary email', async () => {
    const r = await cli('persons', 'list', '--json', '--config', config);
    expect(r.code).toBe(0);
    expect(r.json.persons).toEqual([
      expect.objectContaining({
        personId: mariaId,
        externalId: 'ext-1',
        environment: 'production',
        status: 'active',
        name: 'Maria Schmidt',
        email: 'maria@example.com',
        assuranceLevel: 'high',
        documents: 1,
      }),
      expect.objectContaining({ externalId: 'ext-2', email: 'jean@example.fr', documents: 0 }),
    ]);
    const human = await cli('persons', 'list', '--config', config);
    expect(human.stdout).toContain(`${mariaId}  active`);
    expect(human.stdout).toContain('Maria Schmidt <maria@example.com>');

    const sandbox = await cli('persons', 'list', '--env', 'sandbox', '--json', '--config', config);
    expect(sandbox.json.persons.some((p: { environment: string }) => p.environment !== 'sandbox')).toBe(
      false,
    );
    expect((await cli('persons', 'list', '--env', 'staging', '--config', config)).code).toBe(2);
  });

  test('show gives the whole person without the password hash or the full document number', async () => {
    const r = await cli('persons', 'show', mariaId, '--json', '--config', config);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      personId: mariaId,
      externalId: 'ext-1',
      givenName: 'Maria',
      birthdate: '1988-04-12',
      nationalities: ['DE'],
      hasPassword: true,
      hasPhoto: false,
      emails: [{ email: 'maria@example.com', verified: true, primary: true }],
      phones: [{ phone: '+491701234567', verified: true, primary: true }],
      documents: [
        {
          documentId: expect.stringMatching(/^doc_/),
          type: 'passport',
          issuingCountry: 'DE',
          maskedNumber: '******T47',
          issueDate: '2021-09-01',
          validityStatus: 'valid',
          verifiedAt: '2026-01-15T09:30:00.000Z',
          checkMethod: 'vcrypt',
          primary: true,
          status: 'active',
        },
      ],
    });
    expect(r.stdout).not.toContain('argon2');
    expect(r.stdout).not.toContain('C01X00T47');

    const byExternal = await cli('persons', 'show', '--external-id', 'ext-2', '--json', '--config', config);
    expect(byExternal.json).toMatchObject({ externalId: 'ext-2', hasPassword: false, documents: [] });

    const human = await cli('persons', 'show', mariaId, '--config', config);
    expect(human.stdout).toContain('maria@example.com (verified) [primary]');
    expect(human.stdout).toContain(
      '******T47 issued 2021-09-01, expires 2031-08-31, valid, verified by vcrypt',
    );
    expect(human.stdout).not.toContain('C01X00T47');
  });

  test("show --application adds each document's reference and attestation id as that application sees them", async () => {
    const app = await createTestApp(ctx, {
      type: 'confidential',
      redirectUris: ['https://rp.example/cb'],
      scopes: 'openid',
      environment: 'production',
    });
    const stored = ctx.db.sql
      .prepare<{ id: string; attestation_id: string }>(
        'SELECT id, attestation_id FROM identity_documents WHERE person_id = ?',
      )
      .get(mariaId)!;
    const r = await cli(
      'persons',
      'show',
      mariaId,
      '--application',
      app.applicationId,
      '--json',
      '--config',
      config,
    );
    expect(r.code).toBe(0);
    expect(r.json.documents[0].application).toEqual({
      applicationId: app.applicationId,
      documentReference: await documentReference(ctx, app.applicationId, stored.id),
      attestationId: await attestationReference(ctx, app.applicationId, stored.attestation_id),
    });
    const human = await cli(
      'persons',
      'show',
      mariaId,
      '--application',
      app.applicationId,
      '--config',
      config,
    );
    expect(human.stdout).toContain(`to ${app.applicationId}: reference `);
    const unknown = await cli('persons', 'show', mariaId, '--application', 'app_nope', '--config', config);
    expect(unknown.code).toBe(1);
  });

  // Stored before the import refused control characters: printed escaped, never raw.
  test("list and show escape a stored field's control characters", async () => {
    ctx.db.sql
      .prepare('UPDATE persons SET external_id = ?, name = ? WHERE id = ?')
      .run('ext-1\npsn_FAKE  active  high  ceo', 'Maria\u001b]0;owned\u0007', mariaId);
    const list = await cli('persons', 'list', '--config', config);
    expect(list.stdout).not.toContain('\u001b');
    expect(list.stdout).toContain('ext-1\\u000apsn_FAKE');
    expect(list.stdout.trimEnd().split('\n')).toHaveLength(2);
    const show = await cli('persons', 'show', mariaId, '--config', config);
    expect(show.stdout).not.toContain('\u001b');
    expect(show.stdout).toContain('Maria\\u001b]0;owned\\u0007');
  });

  test('show refuses unknown persons (exit 1) and ambiguous or missing arguments (exit 2)', async () => {
    const unknown = await cli('persons', 'show', 'psn_nobody', '--json', '--config', config);
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.message).toContain('psn_nobody');
    expect((await cli('persons', 'show', '--config', config)).code).toBe(2);
    expect((await cli('persons', 'show', mariaId, '--external-id', 'ext-1', '--config', config)).code).toBe(
      2,
    );
  });

  test('disable marks the person disabled, is audited once, and survives the next import', async () => {
    const r = await cli('persons', 'disable', mariaId, '--json', '--config', config);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ personId: mariaId, status: 'disabled' });
    const again = await cli('persons', 'disable', mariaId, '--config', config);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already disabled');

    const audit = listAudit(ctx.db, { action: 'person.disable' });
    expect(audit).toEqual([
      expect.objectContaining({ actor: 'cli', target: mariaId, details: { externalId: 'ext-1' } }),
    ]);

    await importPersons(ctx, jsonl(record({ givenName: 'Marie' })));
    const shown = await cli('persons', 'show', mariaId, '--json', '--config', config);
    expect(shown.json).toMatchObject({ givenName: 'Marie', status: 'disabled' });
    const active = await cli('persons', 'list', '--status', 'active', '--json', '--config', config);
    expect(active.json.persons.map((p: { externalId: string }) => p.externalId)).toEqual(['ext-2']);

    expect((await cli('persons', 'disable', 'psn_nobody', '--config', config)).code).toBe(1);
    expect((await cli('persons', 'disable', '--config', config)).code).toBe(2);
  });

  test('list and show keep the order rows were imported in, also within one second', async () => {
    // Under the fixed clock every row below has the same creation time: only the file's order is left.
    const passport = (record().documents as Record<string, unknown>[])[0]!;
    const doc = (type: string, number: string) => ({ ...passport, type, number });
    const documents = [
      doc('residence_permit', 'R01X00T47'),
      doc('passport', 'Z01X00T47'),
      doc('driving_licence', 'B01X00T47'),
      doc('id_card', 'M01X00T47'),
    ];
    const person = (externalId: string) =>
      record({ externalId, emails: [{ email: `${externalId}@example.com`, verified: true }], documents });
    await importPersons(ctx, jsonl(...['ext-q', 'ext-c', 'ext-x', 'ext-k'].map(person)));
    // Updating a person or a document moves neither.
    await importPersons(ctx, jsonl(person('ext-c'), record({ givenName: 'Marie' })));

    const listed = await cli('persons', 'list', '--json', '--config', config);
    expect(listed.json.persons.map((p: { externalId: string }) => p.externalId)).toEqual([
      'ext-1',
      'ext-2',
      'ext-q',
      'ext-c',
      'ext-x',
      'ext-k',
    ]);
    const shown = await cli('persons', 'show', '--external-id', 'ext-c', '--json', '--config', config);
    expect(shown.json.documents.map((d: { type: string }) => d.type)).toEqual(documents.map((d) => d.type));
  });

  test('--help describes each persons command', async () => {
    const r = await cli('persons', 'show', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: verity persons show PERSON_ID | --external-id ID');
  });
});
