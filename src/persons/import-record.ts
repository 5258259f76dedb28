import countries from 'i18n-iso-countries/index.js';
import { hashProblem } from '../crypto/password.ts';
import { z } from '../zod.ts';
import { ASSURANCE_LEVELS } from './assurance.ts';
import { CHECK_METHODS } from './check-methods.ts';

/**
 * One line of a `verity persons import` file: a person and their verified identity data as an upstream
 * verification process hands them over. Objects are strict so a misspelt field is an error rather than
 * data silently dropped.
 */

export const DOCUMENT_TYPES = ['passport', 'id_card', 'driving_licence', 'residence_permit'] as const;
export const VALIDITY_STATUSES = ['valid', 'expired', 'revoked', 'suspended'] as const;

/** The identity experience serves the photo as a data URL; DESIGN.md §5 caps it at 64 KiB. */
export const MAX_PHOTO_BYTES = 64 * 1024;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date that exists (no 2023-02-30), as YYYY-MM-DD. */
export function isRealDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

const calendarDate = z
  .string()
  .check(z.regex(DATE, 'Must be a date as YYYY-MM-DD'), z.refine(isRealDate, 'Not a real calendar date'));

// ISO 3166-1 alpha-2 only: the library also accepts alpha-3 and numeric codes, which the claims never carry.
const country = z.string().check(
  z.regex(/^[A-Z]{2}$/, 'Must be an ISO 3166-1 alpha-2 code in capitals, e.g. "DE"'),
  z.refine((c) => countries.isValid(c), 'Unknown ISO 3166-1 alpha-2 country code'),
);

// No control characters: these fields are printed to an operator's terminal (`verity persons list`),
// where a newline would forge a row and an escape sequence would drive the terminal.
const nonEmpty = (max: number) =>
  z
    .string()
    .check(
      z.trim(),
      z.minLength(1, 'Must not be empty'),
      z.maxLength(max),
      z.regex(/^\P{Cc}*$/u, 'Must not contain control characters'),
    );

const primary = z.optional(z.boolean());

const email = z.strictObject({ email: z.email(), verified: z.boolean(), primary });

const phone = z.strictObject({
  phone: z.string().check(z.regex(/^\+[1-9]\d{6,14}$/, 'Must be an E.164 number, e.g. "+491701234567"')),
  verified: z.boolean(),
  primary,
});

const photo = z.string().check(
  z.maxLength(MAX_PHOTO_BYTES, `Must be at most ${MAX_PHOTO_BYTES} bytes`),
  z.regex(/^data:image\/jpeg;base64,[A-Za-z0-9+/]+={0,2}$/, 'Must be a data:image/jpeg;base64,… URL'),
  // "/9j/" is base64 for FF D8 FF, the start of every JPEG: a PNG relabelled as JPEG is refused.
  z.refine((v) => v.startsWith('data:image/jpeg;base64,/9j/'), 'Not a JPEG image'),
);

function documentSchema(now: Date) {
  const today = now.toISOString().slice(0, 10);
  return z
    .strictObject({
      type: z.enum(DOCUMENT_TYPES),
      issuingCountry: country,
      number: nonEmpty(64).check(z.regex(/^[A-Za-z0-9 -]+$/, 'Only letters, digits, spaces and "-"')),
      issueDate: z.optional(calendarDate.check(z.refine((d) => d <= today, 'Must not be in the future'))),
      expiryDate: calendarDate,
      validityStatus: z.enum(VALIDITY_STATUSES),
      verified: z.boolean(),
      verifiedAt: z.optional(
        z.iso
          .datetime({ offset: true })
          .check(z.refine((v) => Date.parse(v) <= now.getTime(), 'Must not be in the future')),
      ),
      checkMethod: z.optional(z.enum(CHECK_METHODS)),
      shareEnabled: z.optional(z.boolean()),
      displayName: z.optional(nonEmpty(100)),
      primary,
    })
    .check(
      z.superRefine((d, ctx) => {
        if (d.issueDate === undefined) return;
        if (d.issueDate > d.expiryDate)
          ctx.addIssue({ code: 'custom', path: ['issueDate'], message: 'Must not be after expiryDate' });
        // The date as written, in the check's own offset, so a check on the day of issue always passes.
        if (d.verifiedAt !== undefined && d.verifiedAt.slice(0, 10) < d.issueDate)
          ctx.addIssue({ code: 'custom', path: ['verifiedAt'], message: 'Must not be before issueDate' });
      }),
    );
}

/** At most one entry marked primary; with several entries, exactly one must be. */
function onePrimary(what: string) {
  return (items: { primary?: boolean }[], ctx: z.core.$RefinementCtx) => {
    const marked = items.filter((i) => i.primary).length;
    if (marked > 1) ctx.addIssue({ code: 'custom', message: `Only one ${what} may be primary` });
    else if (marked === 0 && items.length > 1)
      ctx.addIssue({ code: 'custom', message: `Exactly one ${what} must be primary` });
  };
}

/** The schema depends on today's date (a birthdate may not be in the future), so it takes the clock's now. */
export function importRecordSchema(now: Date) {
  const today = now.toISOString().slice(0, 10);
  return z
    .strictObject({
      externalId: nonEmpty(200),
      givenName: nonEmpty(200),
      familyName: nonEmpty(200),
      name: z.optional(nonEmpty(400)),
      preferredUsername: z.optional(nonEmpty(200)),
      locale: z.optional(
        z
          .string()
          .check(z.regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'Must be a BCP 47 language tag, e.g. "de-DE"')),
      ),
      legalGivenName: z.optional(nonEmpty(200)),
      legalFamilyName: z.optional(nonEmpty(200)),
      birthdate: calendarDate.check(z.refine((d) => d <= today, 'Must not be in the future')),
      nationalities: z
        .array(country)
        .check(z.refine((a) => new Set(a).size === a.length, 'Duplicate country')),
      emails: z.array(email).check(
        z.superRefine(onePrimary('email')),
        z.superRefine((items, ctx) => {
          const seen = new Set<string>();
          items.forEach((e, i) => {
            const key = e.email.toLowerCase();
            if (seen.has(key))
              ctx.addIssue({ code: 'custom', path: [i, 'email'], message: 'Duplicate email' });
            seen.add(key);
          });
        }),
      ),
      phones: z.array(phone).check(
        z.superRefine(onePrimary('phone')),
        z.refine((a) => new Set(a.map((p) => p.phone)).size === a.length, 'Duplicate phone'),
      ),
      photo: z.optional(photo),
      password: z.optional(
        z.string().check(z.minLength(8, 'Must be at least 8 characters'), z.maxLength(1024)),
      ),
      passwordHash: z.optional(
        z.string().check(
          z.maxLength(512),
          z.superRefine((encoded, ctx) => {
            const problem = hashProblem(encoded, { floors: true });
            if (problem)
              ctx.addIssue({ code: 'custom', message: `Must be an argon2id hash Verity checks: ${problem}` });
          }),
        ),
      ),
      assuranceLevel: z.enum(ASSURANCE_LEVELS),
      identityVerified: z.optional(z.boolean()),
      photoVerified: z.optional(z.boolean()),
      faceTemplateRef: z.optional(nonEmpty(500)),
      documents: z.array(documentSchema(now)).check(
        z.superRefine((docs, ctx) => {
          if (docs.filter((d) => d.primary).length > 1)
            ctx.addIssue({ code: 'custom', message: 'Only one document may be primary' });
          const seen = new Set<string>();
          docs.forEach((d, i) => {
            const key = documentKey(d);
            if (seen.has(key))
              ctx.addIssue({ code: 'custom', path: [i], message: 'Same type, country and number twice' });
            seen.add(key);
          });
        }),
      ),
    })
    .check(
      z.superRefine((r, ctx) => {
        if (r.password !== undefined && r.passwordHash !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['password'],
            message: 'Give password or passwordHash, not both',
          });
        if (r.photoVerified && r.photo === undefined)
          ctx.addIssue({ code: 'custom', path: ['photoVerified'], message: 'Needs a photo' });
      }),
    );
}

export type ImportRecord = z.output<ReturnType<typeof importRecordSchema>>;
export type ImportDocument = ImportRecord['documents'][number];

/** A document's natural key: re-importing the same type, country and number updates it in place. */
export const documentKey = (d: { type: string; issuingCountry: string; number: string }): string =>
  `${d.type}|${d.issuingCountry}|${normalizeDocumentNumber(d.number)}`;

/** Numbers are compared without spaces and case, as printed numbers vary in both. */
export const normalizeDocumentNumber = (n: string): string => n.replace(/\s+/g, '').toUpperCase();

/** "line 3: emails.0.email" — the field path an operator needs to find the problem. */
export function formatRecordIssues(
  line: number,
  issues: z.core.$ZodIssue[],
): { path: string; message: string }[] {
  return issues.flatMap((i) => {
    if (i.code === 'unrecognized_keys')
      return i.keys.map((k) => ({ path: linePath(line, [...i.path, k]), message: 'Unknown field' }));
    return [{ path: linePath(line, i.path), message: i.message }];
  });
}

export const linePath = (line: number, path: readonly PropertyKey[] = []): string =>
  path.length ? `line ${line}: ${path.map(String).join('.')}` : `line ${line}`;
