import countries from 'i18n-iso-countries/index.js';
import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
import type { AuditActor } from '../audit/audit.store.ts';
import { recordAudit } from '../audit/audit.store.ts';
import { DOCUMENT_TYPE_LABELS } from '../capabilities/data/document-types.ts';
import { sha256HexSync } from '../crypto/digest.ts';
import { hashPassword, verifyPassword } from '../crypto/password.ts';
import { randomId } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import { ValidationError } from '../errors.ts';
import { type Clock, unix } from '../platform/clock.ts';
import { createSessionStore, type SessionStore } from '../web/session.store.ts';
import {
  documentKey,
  formatRecordIssues,
  type ImportDocument,
  type ImportRecord,
  importRecordSchema,
  linePath,
  normalizeDocumentNumber,
} from './import-record.ts';
import { createPersonStore, type DocumentRow, type PersonRow, type PersonStore } from './person.store.ts';

countries.registerLocale(en);

/** Imported persons are real accounts; sandbox personas are seeded separately and never mix with them. */
const ENVIRONMENT = 'production' as const;

export interface ImportResult {
  imported: number;
  updated: number;
}

interface ParsedLine {
  line: number;
  record: ImportRecord;
}

type FieldError = { path: string; message: string };

/**
 * Imports a JSON Lines file of persons, all or nothing: every line is validated (and checked against the
 * database) before anything is written, and then one transaction upserts every person by external id.
 * Re-importing an external id updates that person; it never creates a second one.
 */
export async function importPersons(
  deps: { db: Db; clock: Clock },
  text: string,
  opts: { actor?: AuditActor } = {},
): Promise<ImportResult> {
  const store = createPersonStore(deps.db);
  const sessions = createSessionStore(deps.db);
  const { parsed, errors } = parseLines(text, deps.clock.now());
  errors.push(...conflictsWithDatabase(store, parsed));
  if (errors.length) {
    const lines = new Set(errors.map((e) => e.path.match(/^line (\d+)/)?.[1])).size;
    throw new ValidationError(
      `${lines} ${lines === 1 ? 'line is' : 'lines are'} invalid; nothing was imported`,
      errors,
    );
  }

  // Argon2id is slow on purpose, so it runs before the (synchronous) transaction, never inside it. A
  // password the person already has keeps its hash (see `passwordFields`).
  const passwords = new Map<number, Password>();
  for (const { line, record } of parsed) {
    if (record.password !== undefined) {
      const stored = store.byExternalId(ENVIRONMENT, record.externalId)?.passwordHash;
      const same = stored && (await verifyPassword(record.password, stored));
      passwords.set(line, { hashed: same ? stored : await hashPassword(record.password) });
    } else if (record.passwordHash !== undefined) passwords.set(line, { imported: record.passwordHash });
  }

  const now = unix(deps.clock);
  return deps.db.sql.transaction(() => {
    // Checked again inside the transaction: another writer may have taken an email since validation.
    const late = conflictsWithDatabase(store, parsed);
    if (late.length)
      throw new ValidationError('an email was taken while importing; nothing was imported', late);
    const result: ImportResult = { imported: 0, updated: 0 };
    for (const { line, record } of parsed) {
      const { personId, created } = upsertPerson(store, sessions, record, passwords.get(line), now);
      if (created) result.imported++;
      else result.updated++;
      recordAudit(deps.db, deps.clock, {
        actor: opts.actor ?? 'cli',
        action: 'person.import',
        target: personId,
        details: { externalId: record.externalId, outcome: created ? 'imported' : 'updated' },
      });
    }
    return result;
  });
}

/** Parses and validates every line, collecting every problem with its line number and field path. */
function parseLines(text: string, now: Date): { parsed: ParsedLine[]; errors: FieldError[] } {
  const schema = importRecordSchema(now);
  const parsed: ParsedLine[] = [];
  const errors: FieldError[] = [];
  const externalIds = new Map<string, number>();
  const emails = new Map<string, number>();

  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      errors.push({ path: linePath(line), message: `Invalid JSON (${(e as Error).message})` });
      return;
    }
    const result = schema.safeParse(value, {
      // A missing field reads "Required" rather than a type or enum mismatch against undefined.
      error: (issue) =>
        issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value')
          ? 'Required'
          : undefined,
    });
    if (!result.success) {
      errors.push(...formatRecordIssues(line, result.error.issues));
      return;
    }
    const record = normalize(result.data);
    const first = externalIds.get(record.externalId);
    if (first !== undefined) {
      errors.push({ path: linePath(line, ['externalId']), message: `Same externalId as line ${first}` });
      return;
    }
    externalIds.set(record.externalId, line);
    let clash = false;
    record.emails.forEach((e, i) => {
      const other = emails.get(e.email);
      if (other !== undefined) {
        errors.push({ path: linePath(line, ['emails', i, 'email']), message: `Also used on line ${other}` });
        clash = true;
      } else emails.set(e.email, line);
    });
    if (!clash) parsed.push({ line, record });
  });
  return { parsed, errors };
}

/** Emails are compared and stored in lower case, so one mailbox cannot belong to two persons. */
function normalize(record: ImportRecord): ImportRecord {
  return {
    ...record,
    emails: record.emails.map((e) => ({ ...e, email: e.email.toLowerCase() })),
    documents: record.documents.map((d) => ({ ...d, number: normalizeDocumentNumber(d.number) })),
  };
}

/** An email already held by a person other than the one this line updates. */
function conflictsWithDatabase(store: PersonStore, parsed: ParsedLine[]): FieldError[] {
  const owners = store.emailOwners(parsed.flatMap((p) => p.record.emails.map((e) => e.email)));
  if (owners.size === 0) return [];
  const errors: FieldError[] = [];
  for (const { line, record } of parsed) {
    const self = store.byExternalId(ENVIRONMENT, record.externalId)?.id;
    record.emails.forEach((e, i) => {
      const owner = owners.get(e.email);
      if (owner !== undefined && owner !== self)
        errors.push({
          path: linePath(line, ['emails', i, 'email']),
          message: 'Already used by another person',
        });
    });
  }
  return errors;
}

/** A record's password: hashed here from its plain text, or the hash it carried. */
type Password = { hashed: string } | { imported: string };

/**
 * The password columns a record sets, and whether the password changed. A hash Verity made from plain
 * text is kept when the text matched it; an imported hash is the same one again when it is what the
 * last import gave (`password_import_digest`), even after a sign-in replaced it with Verity's own.
 */
function passwordFields(existing: PersonRow | undefined, password: Password | undefined) {
  if (!password) return { fields: {}, changed: false };
  if ('hashed' in password) {
    const changed = password.hashed !== existing?.passwordHash;
    return { fields: changed ? { passwordHash: password.hashed, passwordImportDigest: null } : {}, changed };
  }
  const digest = sha256HexSync(password.imported);
  const same = existing?.passwordImportDigest === digest || existing?.passwordHash === password.imported;
  return {
    fields: same
      ? { passwordImportDigest: digest }
      : { passwordHash: password.imported, passwordImportDigest: digest },
    changed: !same,
  };
}

function upsertPerson(
  store: PersonStore,
  sessions: SessionStore,
  r: ImportRecord,
  password: Password | undefined,
  now: number,
): { personId: string; created: boolean } {
  const existing = store.byExternalId(ENVIRONMENT, r.externalId);
  const pw = passwordFields(existing, password);
  // A re-import replaces what the record describes; optional fields it leaves out are cleared. The one
  // exception is the password: upstream files need not carry it every time, so it is kept when absent.
  const fields = {
    givenName: r.givenName,
    familyName: r.familyName,
    name: r.name ?? `${r.givenName} ${r.familyName}`,
    preferredUsername: r.preferredUsername ?? null,
    locale: r.locale ?? null,
    legalGivenName: r.legalGivenName ?? null,
    legalFamilyName: r.legalFamilyName ?? null,
    birthdate: r.birthdate,
    nationalities: JSON.stringify(r.nationalities),
    photo: r.photo ?? null,
    photoVerified: r.photoVerified ?? false,
    assuranceLevel: r.assuranceLevel,
    identityVerified: r.identityVerified ?? false,
    faceTemplateRef: r.faceTemplateRef ?? null,
    updatedAt: now,
    ...pw.fields,
  };
  let personId: string;
  if (existing) {
    personId = existing.id;
    // The status is left alone: an operator's `persons disable` survives the next upstream import.
    store.update(personId, fields);
    // A new password (a reset upstream) signs out whoever signed in with the old one.
    if (pw.changed) sessions.deleteAll('identity', personId);
  } else {
    personId = randomId('psn_');
    store.insert({
      id: personId,
      externalId: r.externalId,
      environment: ENVIRONMENT,
      createdAt: now,
      ...fields,
    });
  }
  store.replaceEmails(
    personId,
    withPrimary(r.emails).map((e) => ({ ...e, primary: e.primary ?? false })),
  );
  store.replacePhones(
    personId,
    withPrimary(r.phones).map((p) => ({ ...p, primary: p.primary ?? false })),
  );
  upsertDocuments(store, personId, r.documents, now);
  return { personId, created: !existing };
}

/** A single entry is primary without saying so (validation already demands a mark when there are several). */
function withPrimary<T extends { primary?: boolean }>(items: T[]): T[] {
  if (items.length === 1) return [{ ...items[0]!, primary: true }];
  return items;
}

/**
 * Documents are matched by type, country and number, so a re-imported document keeps its id (and the
 * references applications hold for it). Documents missing from the record are disabled, not deleted.
 */
function upsertDocuments(store: PersonStore, personId: string, docs: ImportDocument[], now: number): void {
  const existing = new Map<string, DocumentRow>(
    store
      .documents(personId)
      .map((d) => [
        documentKey({ type: d.documentType, issuingCountry: d.issuingCountry, number: d.documentNumber }),
        d,
      ]),
  );
  const primaryIndex = Math.max(
    docs.findIndex((d) => d.primary),
    0,
  );
  const seen = new Set<string>();
  docs.forEach((d, i) => {
    const key = documentKey(d);
    seen.add(key);
    const fields = {
      displayName: d.displayName ?? defaultDisplayName(d),
      issueDate: d.issueDate ?? null,
      expiryDate: d.expiryDate,
      validityStatus: d.validityStatus,
      verified: d.verified,
      verifiedAt: d.verifiedAt !== undefined ? Math.floor(Date.parse(d.verifiedAt) / 1000) : null,
      checkMethod: d.checkMethod ?? null,
      primary: i === primaryIndex,
      status: 'active' as const,
      updatedAt: now,
    };
    const row = existing.get(key);
    if (row) {
      store.updateDocument(row.id, {
        ...fields,
        // The sharing switch is the person's: only an explicit value in the file overrides it.
        ...(d.shareEnabled !== undefined ? { shareEnabled: d.shareEnabled } : {}),
        ...(row.status === 'disabled' ? { proofStatus: 'active' as const } : {}),
      });
    } else {
      store.insertDocument({
        id: randomId('doc_'),
        personId,
        documentType: d.type,
        issuingCountry: d.issuingCountry,
        documentNumber: d.number,
        shareEnabled: d.shareEnabled ?? true,
        attestationId: randomId('att_'),
        proofStatus: 'active',
        createdAt: now,
        ...fields,
      });
    }
  });
  for (const [key, row] of existing) {
    if (seen.has(key) || row.status === 'disabled') continue;
    // Upstream no longer vouches for this document: its proof is withdrawn along with it.
    store.updateDocument(row.id, {
      status: 'disabled',
      primary: false,
      proofStatus: 'revoked',
      updatedAt: now,
    });
  }
}

function defaultDisplayName(d: ImportDocument): string {
  return `${DOCUMENT_TYPE_LABELS[d.type]} (${countries.getName(d.issuingCountry, 'en') ?? d.issuingCountry})`;
}
