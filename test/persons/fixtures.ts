import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testToml } from '../helpers/context.ts';

/** A valid import record; tests override fields to break or change it. */
export function record(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    externalId: 'ext-1',
    givenName: 'Maria',
    familyName: 'Schmidt',
    birthdate: '1988-04-12',
    nationalities: ['DE'],
    emails: [{ email: 'maria@example.com', verified: true }],
    phones: [{ phone: '+491701234567', verified: true }],
    assuranceLevel: 'high',
    identityVerified: true,
    documents: [
      {
        type: 'passport',
        issuingCountry: 'DE',
        number: 'C01X00T47',
        expiryDate: '2031-08-31',
        validityStatus: 'valid',
        verified: true,
        verifiedAt: '2026-01-15T09:30:00Z',
      },
    ],
    ...overrides,
  };
}

export const jsonl = (...records: unknown[]): string =>
  `${records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')}\n`;

/** Writes the config the test context runs with, so CLI calls reach the same database. */
export function writeConfig(dir: string): string {
  const path = join(dir, 'verity.toml');
  writeFileSync(path, testToml(dir));
  return path;
}

export function writeFile(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
