import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/open.ts';
import { identityDocuments, personEmails, personPhones, persons } from '../db/schema/persons.ts';

export type PersonRow = typeof persons.$inferSelect;
export type PersonInsert = typeof persons.$inferInsert;
export type EmailRow = typeof personEmails.$inferSelect;
export type PhoneRow = typeof personPhones.$inferSelect;
export type DocumentRow = typeof identityDocuments.$inferSelect;
export type DocumentInsert = typeof identityDocuments.$inferInsert;
export type Environment = PersonRow['environment'];

/** Queries for the person aggregate: the person row, their emails, phones and identity documents. */
export function createPersonStore(db: Db) {
  const orm = db.orm;
  return {
    get: (id: string) => orm.select().from(persons).where(eq(persons.id, id)).get(),

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
        .orderBy(asc(persons.createdAt), sql`rowid`)
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
        .orderBy(asc(identityDocuments.createdAt), sql`rowid`)
        .all(),

    insert: (row: PersonInsert) => orm.insert(persons).values(row).run(),
    update: (id: string, fields: Partial<PersonInsert>) =>
      orm.update(persons).set(fields).where(eq(persons.id, id)).run(),

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

    insertDocument: (row: DocumentInsert) => orm.insert(identityDocuments).values(row).run(),
    updateDocument: (id: string, fields: Partial<DocumentInsert>) =>
      orm.update(identityDocuments).set(fields).where(eq(identityDocuments.id, id)).run(),
  };
}
export type PersonStore = ReturnType<typeof createPersonStore>;
