import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { listAudit } from '../../src/audit/audit.store.ts';
import { cli } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const BASIC = ['openid', 'profile', 'email', 'emails', 'phone', 'phones'];

async function get(srv: TestServer, path: string) {
  const res = await fetch(`${srv.url}/v1/capabilities${path}`);
  const body = (await res.json()) as any;
  return { status: res.status, headers: res.headers, body };
}

function expectApiError(r: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.body).toEqual({ error: { code, message: expect.any(String), requestId: expect.any(String) } });
  expect(r.body.error.requestId).toBe(r.headers.get('x-request-id')!);
}

describe('capability discovery (read-only)', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv.stop();
  });

  test('GET /countries lists supported countries with names and document counts, cacheable for 60s', async () => {
    const r = await get(srv, '/countries');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=60');
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.headers.get('x-ratelimit-limit')).toBe('300');
    const list = r.body.data.countries as { code: string; name: string; documentTypes: number }[];
    expect(list.length).toBeGreaterThanOrEqual(40);
    for (const c of list) expect(Object.keys(c).sort()).toEqual(['code', 'documentTypes', 'name']);
    expect(list.find((c) => c.code === 'DE')).toEqual({ code: 'DE', name: 'Germany', documentTypes: 4 });
    expect(list.find((c) => c.code === 'GB')).toEqual({
      code: 'GB',
      name: 'United Kingdom',
      documentTypes: 2,
    });
    expect(list.find((c) => c.code === 'DK')!.documentTypes).toBe(3);
  });

  test('GET /countries/:cc gives the available document types and capture methods', async () => {
    const r = await get(srv, '/countries/FR');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=60');
    expect(r.body).toEqual({
      data: {
        code: 'FR',
        name: 'France',
        documentTypes: [
          { type: 'passport', captureMethods: ['nfc', 'mrz', 'photo'] },
          { type: 'id_card', captureMethods: ['nfc', 'mrz', 'photo'] },
          { type: 'driving_licence', captureMethods: ['photo'] },
          { type: 'residence_permit', captureMethods: ['nfc', 'mrz', 'photo'] },
        ],
      },
    });
    // A pair the dataset holds but ships unavailable is not listed.
    const gb = await get(srv, '/countries/GB');
    expect(gb.body.data.documentTypes.map((d: { type: string }) => d.type)).toEqual([
      'passport',
      'driving_licence',
    ]);
  });

  test('GET /countries/:cc/document-types/:type gives the pair details', async () => {
    const r = await get(srv, '/countries/NL/document-types/id_card');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=60');
    expect(r.body).toEqual({
      data: {
        country: 'NL',
        documentType: 'id_card',
        available: true,
        captureMethods: ['nfc', 'mrz', 'photo'],
        fields: expect.arrayContaining([
          'documentNumber',
          'givenNames',
          'familyName',
          'dateOfBirth',
          'expiryDate',
        ]),
        assuranceLevel: 'high',
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    });
  });

  test('codes are normalised: de → DE, ID_CARD → id_card', async () => {
    const lower = await get(srv, '/countries/de');
    expect(lower.status).toBe(200);
    expect(lower.body.data.code).toBe('DE');
    const mixed = await get(srv, '/countries/dE/document-types/ID_CARD');
    expect(mixed.status).toBe(200);
    expect(mixed.body.data).toMatchObject({ country: 'DE', documentType: 'id_card' });
  });

  test('unknown or malformed country codes are 404 COUNTRY_NOT_SUPPORTED, never a 500', async () => {
    const long = 'A'.repeat(4000);
    for (const cc of [
      'XX',
      'BR',
      'D',
      'DEU',
      '1!',
      '%00',
      'D%00',
      '%25',
      '%',
      '%E0%A4%A',
      '%C3%84%C3%96',
      long,
      'de%20',
      '%2F',
    ]) {
      for (const path of [`/countries/${cc}`, `/countries/${cc}/document-types/passport`]) {
        const r = await get(srv, path);
        expect(`${cc.slice(0, 8)} ${r.body.error?.code}`).toBe(`${cc.slice(0, 8)} COUNTRY_NOT_SUPPORTED`);
        expectApiError(r, 404, 'COUNTRY_NOT_SUPPORTED');
        expect(r.body.error.message).not.toContain(long);
        // Absence is cached as briefly as presence, so a pair switched on reaches clients as quickly.
        expect(r.headers.get('cache-control')).toBe('public, max-age=60');
      }
    }
  });

  test('unknown, malformed or unavailable document types are 404 DOCUMENT_TYPE_NOT_SUPPORTED', async () => {
    // DK issues no ID card; GB residence permits ship unavailable.
    for (const path of [
      '/countries/DE/document-types/visa',
      '/countries/DE/document-types/%00',
      '/countries/DE/document-types/__proto__',
      '/countries/DE/document-types/constructor',
      `/countries/DE/document-types/${'x'.repeat(4000)}`,
      '/countries/DE/document-types/%',
      '/countries/DK/document-types/id_card',
      '/countries/GB/document-types/residence_permit',
    ]) {
      const r = await get(srv, path);
      expectApiError(r, 404, 'DOCUMENT_TYPE_NOT_SUPPORTED');
    }
  });

  test('GET /scopes lists all 26 scopes with their claims, sensitivity, requirements and environments', async () => {
    const r = await get(srv, '/scopes');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=60');
    const scopes = r.body.data.scopes as any[];
    expect(scopes).toHaveLength(26);
    for (const s of scopes) {
      expect(Object.keys(s).sort()).toEqual([
        'claims',
        'description',
        'environments',
        'name',
        'requires',
        'sensitivity',
      ]);
      const expected =
        s.name === 'document_number_full' ? 'restricted' : BASIC.includes(s.name) ? 'basic' : 'sensitive';
      expect(s.sensitivity).toBe(expected);
    }
    const by = Object.fromEntries(scopes.map((s) => [s.name, s]));
    expect(by.document_number_full).toMatchObject({
      sensitivity: 'restricted',
      requires: ['identity_documents'],
      environments: ['production'],
      claims: ['document'],
    });
    expect(by.date_of_birth).toMatchObject({
      claims: ['birthdate'],
      requires: [],
      environments: ['sandbox', 'production'],
    });
    expect(by.document_type.requires).toEqual(['identity_documents']);
    expect(by.profile.claims).toContain('preferred_username');
  });

  test('unknown capability paths are 404 NOT_FOUND', async () => {
    const r = await get(srv, '/languages');
    expectApiError(r, 404, 'NOT_FOUND');
  });
});

describe('capability discovery (changes)', () => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.stop();
    srv = undefined;
  });

  test('an availability change made with the CLI is served on the next request, well within the cache time', async () => {
    srv = await startTestServer();
    const s = srv;
    const run = (...args: string[]) => cli(...args, '--config', s.configPath, '--json');

    const before = await get(s, '/countries/DE/document-types/passport');
    expect(before.status).toBe(200);
    expect(before.headers.get('cache-control')).toBe('public, max-age=60');
    const countBefore = (await get(s, '/countries')).body.data.countries.find(
      (c: any) => c.code === 'DE',
    ).documentTypes;

    const off = await run('capabilities', 'set', 'de', 'passport', '--available', 'false');
    expect(off.code).toBe(0);
    expect(off.json).toMatchObject({
      country: 'DE',
      documentType: 'passport',
      available: false,
      previous: true,
    });

    // A client that honours max-age=60 refetches after the cache time; the server already answers anew.
    s.clock.advance(60_000);
    expectApiError(await get(s, '/countries/DE/document-types/passport'), 404, 'DOCUMENT_TYPE_NOT_SUPPORTED');
    const de = await get(s, '/countries/DE');
    expect(de.body.data.documentTypes.map((d: any) => d.type)).not.toContain('passport');
    const countAfter = (await get(s, '/countries')).body.data.countries.find(
      (c: any) => c.code === 'DE',
    ).documentTypes;
    expect(countAfter).toBe(countBefore - 1);

    const on = await run('capabilities', 'set', 'DE', 'passport', '--available', 'true');
    expect(on.code).toBe(0);
    const again = await get(s, '/countries/DE/document-types/passport');
    expect(again.status).toBe(200);
    expect(again.body.data.available).toBe(true);
    expect(again.body.data.updatedAt).toBe(on.json.updatedAt);

    // An operator can also enable a pair the dataset ships off.
    expect((await run('capabilities', 'set', 'GB', 'residence_permit', '--available', 'true')).code).toBe(0);
    expect((await get(s, '/countries/GB/document-types/residence_permit')).status).toBe(200);

    const audit = listAudit(s.ctx.db, { action: 'capability.set' });
    expect(audit.map((a) => `${a.actor} ${a.target} ${a.details.available}`)).toEqual([
      'cli GB/residence_permit true',
      'cli DE/passport true',
      'cli DE/passport false',
    ]);
  });

  test('a country with no available document type disappears and answers 404 COUNTRY_NOT_SUPPORTED', async () => {
    srv = await startTestServer();
    const s = srv;
    for (const t of ['passport', 'id_card', 'driving_licence', 'residence_permit'])
      expect(
        (await cli('capabilities', 'set', 'NL', t, '--available', 'false', '--config', s.configPath)).code,
      ).toBe(0);
    const list = await get(s, '/countries');
    expect(list.body.data.countries.map((c: any) => c.code)).not.toContain('NL');
    expectApiError(await get(s, '/countries/NL'), 404, 'COUNTRY_NOT_SUPPORTED');
    expectApiError(await get(s, '/countries/nl/document-types/passport'), 404, 'COUNTRY_NOT_SUPPORTED');
    // The operator still sees it, with every pair off.
    const listed = await cli('capabilities', 'list', '--country', 'NL', '--config', s.configPath, '--json');
    expect(listed.json.capabilities.map((c: any) => c.available)).toEqual([false, false, false, false]);
  });

  test('capabilities are rate-limited per IP with the configured limit', async () => {
    srv = await startTestServer({ extra: '[rate_limits.capabilities]\nrequests = 3\nwindow = "1m"' });
    const s = srv;
    for (let i = 0; i < 3; i++) {
      const r = await get(s, i === 1 ? '/scopes' : '/countries');
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
    }
    const limited = await get(s, '/countries/DE');
    expectApiError(limited, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('cache-control')).toBeNull();
    s.clock.advance(60_000);
    expect((await get(s, '/countries/DE')).status).toBe(200);
  });
});
