import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { type AppContext, slot } from '../context.ts';
import { cachedEntry, type HeldCache, heldCache } from '../db/cache-versions.ts';
import type { Db } from '../db/open.ts';
import { identityDocuments, personEmails, personPhones, persons } from '../db/schema/persons.ts';
import type { Environment } from '../environment.ts';

export type PersonRow = typeof persons.$inferSelect;
export type PersonInsert = typeof persons.$inferInsert;
export type EmailRow = typeof personEmails.$inferSelect;
export type PhoneRow = typeof personPhones.$inferSelect;
export type DocumentRow = typeof identityDocuments.$inferSelect;
export type DocumentInsert = typeof identityDocuments.$inferInsert;

/** What the identity experience (sign-in and the flow) needs to know about a person. */
export type FlowPerson = Pick<
  PersonRow,
  'id' | 'environment' | 'name' | 'passwordHash' | 'assuranceLevel' | 'faceTemplateRef' | 'status'
>;
const FLOW_COLUMNS = `p.id, p.environment, p.name, p.password_hash AS "passwordHash",
  p.assurance_level AS "assuranceLevel", p.face_template_ref AS "faceTemplateRef", p.status`;

/** A person's releasable data as UserInfo reads it. */
type ReleasableRow = Omit<
  PersonRow,
  'id' | 'externalId' | 'environment' | 'passwordHash' | 'faceTemplateRef' | 'status' | 'createdAt' | 'seq'
>;
export type ReleasablePerson = Omit<ReleasableRow, 'nationalities'> & {
  nationalities: readonly string[];
  emails: readonly Pick<EmailRow, 'email' | 'verified' | 'primary'>[];
  phones: readonly Pick<PhoneRow, 'phone' | 'verified' | 'primary'>[];
};
/** A person's contacts of one table as a JSON array of [id, value, verified, primary], in either engine. */
const contactsJson = (engine: Db['engine'], table: string, value: string) =>
  engine === 'postgres'
    ? `(SELECT coalesce(json_agg(json_build_array(id, ${value}, verified, "primary")), '[]')::text
        FROM ${table} WHERE person_id = p.id)`
    : `(SELECT json_group_array(json_array(id, ${value}, verified, "primary")) FROM ${table}
        WHERE person_id = p.id)`;
// The person and their contacts in one statement (UserInfo runs it on every request); the contacts are
// sorted here, not by ORDER BY: SQLite would build a temporary B-tree for each.
const releasableSql = (engine: Db['engine']) => `SELECT name, given_name AS "givenName",
    family_name AS "familyName", preferred_username AS "preferredUsername", locale,
    legal_given_name AS "legalGivenName", legal_family_name AS "legalFamilyName", birthdate, nationalities,
    photo, photo_verified AS "photoVerified", assurance_level AS "assuranceLevel",
    identity_verified AS "identityVerified", updated_at AS "updatedAt",
    ${contactsJson(engine, 'person_emails', 'email')} AS emails,
    ${contactsJson(engine, 'person_phones', 'phone')} AS phones
  FROM persons p WHERE p.id = ?`;
const RELEASABLE = { sqlite: releasableSql('sqlite'), postgres: releasableSql('postgres') };
/** A contact as RELEASABLE lists it: [id, value, verified, primary]. */
type ContactRow = [number, string, number, number];
type Flags<T, K extends keyof T> = Omit<T, K> & { [F in K]: number };
/** Contacts primary first, then in the order they were added. */
const contactsOf = (json: string) =>
  (JSON.parse(json) as ContactRow[])
    .sort((a, b) => b[3] - a[3] || a[0] - b[0])
    .map(([, value, verified, primary]) => ({ value, verified: verified === 1, primary: primary === 1 }));

/** A sandbox persona as seeded: every field it owns, with its emails, phones and verified documents. */
export type PersonaSeed = Pick<
  PersonRow,
  | 'id'
  | 'externalId'
  | 'givenName'
  | 'familyName'
  | 'name'
  | 'preferredUsername'
  | 'locale'
  | 'legalGivenName'
  | 'legalFamilyName'
  | 'birthdate'
  | 'nationalities'
  | 'photo'
  | 'photoVerified'
  | 'assuranceLevel'
  | 'identityVerified'
  | 'faceTemplateRef'
  | 'createdAt'
  | 'updatedAt'
> & {
  emails: Pick<EmailRow, 'email' | 'verified' | 'primary'>[];
  phones: Pick<PhoneRow, 'phone' | 'verified' | 'primary'>[];
  documents: Pick<
    DocumentRow,
    | 'id'
    | 'documentType'
    | 'issuingCountry'
    | 'documentNumber'
    | 'displayName'
    | 'issueDate'
    | 'expiryDate'
    | 'validityStatus'
    | 'verifiedAt'
    | 'checkMethod'
    | 'primary'
    | 'attestationId'
  >[];
};

/**
 * The next number of a table's insertion order (`seq`), which orders rows of equal `created_at` as
 * they were written; the `seq` index makes it a single lookup.
 */
const nextSeq = (table: 'persons' | 'identity_documents') =>
  `(SELECT coalesce(max(seq), 0) + 1 FROM ${table})`;

const UPSERT_PERSONA = `INSERT INTO persons (id, external_id, environment, given_name, family_name, name,
    preferred_username, locale, legal_given_name, legal_family_name, birthdate, nationalities, photo,
    photo_verified, password_hash, assurance_level, identity_verified, face_template_ref, status, created_at,
    updated_at, seq)
  VALUES (?, ?, 'sandbox', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, 'active', ?, ?, ${nextSeq('persons')})
  ON CONFLICT(id) DO UPDATE SET external_id = excluded.external_id, environment = 'sandbox',
    given_name = excluded.given_name, family_name = excluded.family_name, name = excluded.name,
    preferred_username = excluded.preferred_username, locale = excluded.locale,
    legal_given_name = excluded.legal_given_name, legal_family_name = excluded.legal_family_name,
    birthdate = excluded.birthdate, nationalities = excluded.nationalities, photo = excluded.photo,
    photo_verified = excluded.photo_verified, password_hash = NULL,
    assurance_level = excluded.assurance_level, identity_verified = excluded.identity_verified,
    face_template_ref = excluded.face_template_ref, status = 'active', updated_at = excluded.updated_at`;
// An address another person holds stays theirs: an import may have run before the first seed.
const UPSERT_PERSONA_EMAIL = `INSERT INTO person_emails (person_id, email, verified, "primary") VALUES (?, ?, ?, ?)
  ON CONFLICT(email) DO UPDATE SET verified = excluded.verified, "primary" = excluded."primary"
  WHERE person_emails.person_id = excluded.person_id`;
const UPSERT_PERSONA_DOCUMENT = `INSERT INTO identity_documents (id, person_id, document_type, issuing_country,
    document_number, display_name, issue_date, expiry_date, validity_status, verified, verified_at,
    check_method, share_enabled, status, "primary", attestation_id, proof_status, created_at, updated_at, seq)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, 1, 'active', ?, ?, 'active', ?, ?, ${nextSeq('identity_documents')})
  ON CONFLICT(id) DO UPDATE SET document_type = excluded.document_type,
    issuing_country = excluded.issuing_country, document_number = excluded.document_number,
    display_name = excluded.display_name, issue_date = excluded.issue_date, expiry_date = excluded.expiry_date,
    validity_status = excluded.validity_status, verified = 1, verified_at = excluded.verified_at,
    check_method = excluded.check_method, share_enabled = 1,
    status = 'active', "primary" = excluded."primary", attestation_id = excluded.attestation_id,
    proof_status = 'active', updated_at = excluded.updated_at`;

/** Queries for the person aggregate: the person row, their emails, phones and identity documents. */
export function createPersonStore(db: Db) {
  const orm = db.orm;
  return {
    get: (id: string) => orm.select().from(persons).where(eq(persons.id, id)).get(),

    flowPerson: (id: string): FlowPerson | undefined =>
      db.sql.prepare<FlowPerson>(`SELECT ${FLOW_COLUMNS} FROM persons p WHERE p.id = ?`).get(id),

    /** A production person by any of their email addresses (case-insensitive). */
    flowPersonByEmail: (email: string): FlowPerson | undefined =>
      db.sql
        .prepare<FlowPerson>(
          `SELECT ${FLOW_COLUMNS} FROM persons p JOIN person_emails e ON e.person_id = p.id
           WHERE lower(e.email) = lower(?) AND p.environment = 'production' LIMIT 1`,
        )
        .get(email.trim()),

    /** The person's releasable data with primary contacts first, or undefined if the row is gone. */
    releasable(id: string): ReleasablePerson | undefined {
      const row = db.reads
        .prepare<
          Flags<ReleasableRow, 'photoVerified' | 'identityVerified'> & { emails: string; phones: string }
        >(RELEASABLE[db.engine])
        .get(id);
      if (!row) return undefined;
      const { emails, phones, ...p } = row;
      return {
        ...p,
        nationalities: JSON.parse(p.nationalities) as string[],
        photoVerified: p.photoVerified === 1,
        identityVerified: p.identityVerified === 1,
        emails: contactsOf(emails).map(({ value, ...c }) => ({ email: value, ...c })),
        phones: contactsOf(phones).map(({ value, ...c }) => ({ phone: value, ...c })),
      };
    },

    byExternalId: (environment: Environment, externalId: string) =>
      orm
        .select()
        .from(persons)
        .where(and(eq(persons.environment, environment), eq(persons.externalId, externalId)))
        .get(),

    list(filter: { environment?: Environment; status?: PersonRow['status'] } = {}) {
      const where = [
        filter.environment ? eq(persons.environment, filter.environment) : undefined,
        filter.status ? eq(persons.status, filter.status) : undefined,
      ].filter((w) => w !== undefined);
      return orm
        .select()
        .from(persons)
        .where(where.length ? and(...where) : undefined)
        .orderBy(asc(persons.createdAt), asc(persons.seq))
        .all();
    },

    /** Which of these emails belong to someone; emails are unique across every person. */
    emailOwners(emails: string[]): Map<string, string> {
      if (emails.length === 0) return new Map();
      const out = new Map<string, string>();
      // Chunked to stay under SQLite's bound-parameter limit on large imports.
      for (let i = 0; i < emails.length; i += 500) {
        const rows = orm
          .select({ email: personEmails.email, personId: personEmails.personId })
          .from(personEmails)
          .where(inArray(personEmails.email, emails.slice(i, i + 500)))
          .all();
        for (const r of rows) out.set(r.email, r.personId);
      }
      return out;
    },

    emails: (personId: string) =>
      orm
        .select()
        .from(personEmails)
        .where(eq(personEmails.personId, personId))
        .orderBy(asc(personEmails.id))
        .all(),
    phones: (personId: string) =>
      orm
        .select()
        .from(personPhones)
        .where(eq(personPhones.personId, personId))
        .orderBy(asc(personPhones.id))
        .all(),
    documents: (personId: string) =>
      orm
        .select()
        .from(identityDocuments)
        .where(eq(identityDocuments.personId, personId))
        .orderBy(asc(identityDocuments.createdAt), asc(identityDocuments.seq))
        .all(),

    insert: (row: Omit<PersonInsert, 'seq'>) =>
      orm
        .insert(persons)
        .values({ ...row, seq: sql.raw(nextSeq('persons')) })
        .run(),
    update: (id: string, fields: Partial<PersonInsert>) =>
      orm.update(persons).set(fields).where(eq(persons.id, id)).run(),

    /** Replaces the password hash, unless it changed since `was` was read; whether it did. */
    replacePasswordHash: (id: string, was: string, hash: string): boolean =>
      db.sql
        .prepare('UPDATE persons SET password_hash = ? WHERE id = ? AND password_hash = ?')
        .run(hash, id, was).changes === 1,

    /** Returns whether the status changed. */
    setStatus: (id: string, status: PersonRow['status'], now: number): boolean =>
      db.sql
        .prepare('UPDATE persons SET status = ?, updated_at = ? WHERE id = ? AND status <> ?')
        .run(status, now, id, status).changes > 0,

    replaceEmails(personId: string, rows: Omit<EmailRow, 'id' | 'personId'>[]) {
      orm.delete(personEmails).where(eq(personEmails.personId, personId)).run();
      if (rows.length)
        orm
          .insert(personEmails)
          .values(rows.map((r) => ({ ...r, personId })))
          .run();
    },
    replacePhones(personId: string, rows: Omit<PhoneRow, 'id' | 'personId'>[]) {
      orm.delete(personPhones).where(eq(personPhones.personId, personId)).run();
      if (rows.length)
        orm
          .insert(personPhones)
          .values(rows.map((r) => ({ ...r, personId })))
          .run();
    },

    /**
     * Writes a sandbox persona by upserts (never delete-and-insert), so consents and tokens that
     * reference it survive restarts; re-running it restores edited data.
     */
    upsertPersona(p: PersonaSeed): void {
      db.sql
        .prepare(UPSERT_PERSONA)
        .run(
          p.id,
          p.externalId,
          p.givenName,
          p.familyName,
          p.name,
          p.preferredUsername,
          p.locale,
          p.legalGivenName,
          p.legalFamilyName,
          p.birthdate,
          p.nationalities,
          p.photo,
          p.photoVerified,
          p.assuranceLevel,
          p.identityVerified,
          p.faceTemplateRef,
          p.createdAt,
          p.updatedAt,
        );
      for (const e of p.emails)
        db.sql.prepare(UPSERT_PERSONA_EMAIL).run(p.id, e.email, e.verified, e.primary);
      db.sql.prepare('DELETE FROM person_phones WHERE person_id = ?').run(p.id);
      for (const ph of p.phones)
        db.sql
          .prepare('INSERT INTO person_phones (person_id, phone, verified, "primary") VALUES (?, ?, ?, ?)')
          .run(p.id, ph.phone, ph.verified, ph.primary);
      for (const d of p.documents)
        db.sql
          .prepare(UPSERT_PERSONA_DOCUMENT)
          .run(
            d.id,
            p.id,
            d.documentType,
            d.issuingCountry,
            d.documentNumber,
            d.displayName,
            d.issueDate,
            d.expiryDate,
            d.validityStatus,
            d.verifiedAt,
            d.checkMethod,
            d.primary,
            d.attestationId,
            p.createdAt,
            p.updatedAt,
          );
    },

    insertDocument: (row: Omit<DocumentInsert, 'seq'>) =>
      orm
        .insert(identityDocuments)
        .values({ ...row, seq: sql.raw(nextSeq('identity_documents')) })
        .run(),
    updateDocument: (id: string, fields: Partial<DocumentInsert>) =>
      orm.update(identityDocuments).set(fields).where(eq(identityDocuments.id, id)).run(),
  };
}
export type PersonStore = ReturnType<typeof createPersonStore>;

// UserInfo reads a person's releasable data on every request, and it changes rarely: it is kept per
// context and dropped whenever the `persons` cache version moves, as the clients are
// (oauth/client.store.ts; the triggers: migrations/0018). On PostgreSQL it is always read (why:
// db/cache-versions.ts).
const MAX_CACHED_PERSONS = 10_000;
const RELEASABLE_CACHE = slot((): HeldCache<Map<string, ReleasablePerson>> => ({}));
const emptyPersons = () => new Map<string, ReleasablePerson>();
const personCount = (persons: Map<string, ReleasablePerson>) => persons.size;

/** The person's releasable data (frozen when cached), or undefined if the row is gone. */
export function releasablePerson(
  { db, caches }: Pick<AppContext, 'db' | 'caches'>,
  id: string,
): ReleasablePerson | undefined {
  const persons = heldCache(
    db,
    'persons',
    caches.get(RELEASABLE_CACHE),
    emptyPersons,
    personCount,
    MAX_CACHED_PERSONS,
  );
  return cachedEntry(persons, id, () => {
    const read = createPersonStore(db).releasable(id);
    // Kept, it is shared between requests.
    return read && persons ? frozen(read) : read;
  });
}

const frozen = (p: ReleasablePerson): ReleasablePerson =>
  Object.freeze({
    ...p,
    nationalities: Object.freeze(p.nationalities),
    emails: Object.freeze(p.emails.map((e) => Object.freeze(e))),
    phones: Object.freeze(p.phones.map((e) => Object.freeze(e))),
  });
