import { consentInForce } from '../consent/consent.store.ts';
import type { Db } from '../db/open.ts';
import type { SqlRow } from '../db/row.ts';
import type { identityDocuments } from '../db/schema/persons.ts';

type DocumentColumns = typeof identityDocuments.$inferSelect;

/** An identity document as the documents API and UserInfo see it. */
export type SharedDocument = Omit<DocumentColumns, 'createdAt' | 'updatedAt' | 'seq'>;

type Row = Omit<SqlRow<typeof identityDocuments>, 'created_at' | 'updated_at' | 'seq'>;

const documentFromRow = (r: Row): SharedDocument => ({
  id: r.id,
  personId: r.person_id,
  documentType: r.document_type,
  issuingCountry: r.issuing_country,
  documentNumber: r.document_number,
  displayName: r.display_name,
  issueDate: r.issue_date,
  expiryDate: r.expiry_date,
  validityStatus: r.validity_status,
  verified: r.verified === 1,
  verifiedAt: r.verified_at,
  checkMethod: r.check_method,
  shareEnabled: r.share_enabled === 1,
  status: r.status,
  primary: r.primary === 1,
  attestationId: r.attestation_id,
  proofStatus: r.proof_status,
});

// Ordered so "the first" is stable: primary first, then by verification time and id. A sandbox
// persona's switch is its session's own (schema: persona_document_sharing); null joins nothing.
const FOR_HOLDER = `SELECT d.id, d.person_id, d.document_type, d.issuing_country, d.document_number,
    d.display_name, d.issue_date, d.expiry_date, d.validity_status, d.verified, d.verified_at, d.check_method,
    COALESCE(s.share_enabled, d.share_enabled) AS share_enabled, d.status, d."primary", d.attestation_id,
    d.proof_status
  FROM identity_documents d
  LEFT JOIN persona_document_sharing s ON s.document_id = d.id AND s.session_id_hash = CAST(? AS TEXT)
  WHERE d.person_id = ?
  ORDER BY d."primary" DESC, d.verified_at IS NULL, d.verified_at, d.id`;

// Only a document of the persona's own; the ON CONFLICT needs the WHERE to parse on SQLite, and
// PostgreSQL the casts to type a SELECT list's parameters.
const SET_SESSION_SHARING = `INSERT INTO persona_document_sharing (session_id_hash, document_id, share_enabled, updated_at)
  SELECT CAST(? AS TEXT), id, CAST(? AS INTEGER), CAST(? AS BIGINT) FROM identity_documents WHERE id = ? AND person_id = ?
  ON CONFLICT (session_id_hash, document_id) DO UPDATE SET share_enabled = excluded.share_enabled,
    updated_at = excluded.updated_at`;

// A session's switches outlive it while a consent it holds is in force: its tokens still read them.
const PURGE_SESSION_SHARING = `DELETE FROM persona_document_sharing
  WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id_hash = persona_document_sharing.session_id_hash)
    AND NOT EXISTS (SELECT 1 FROM consents c
      WHERE c.session_id_hash = persona_document_sharing.session_id_hash AND ${consentInForce('c')})`;

/** Whose documents: a person, and for a sandbox persona the identity session (consent/holder.ts). */
export interface DocumentHolder {
  personId: string;
  sessionIdHash: string | null;
}

/** Reads of identity documents for the resource side, and the holder's sharing switch. */
export function createDocumentStore(db: Db) {
  return {
    forHolder(h: DocumentHolder): SharedDocument[] {
      return db.sql.prepare<Row>(FOR_HOLDER).all(h.sessionIdHash, h.personId).map(documentFromRow);
    },

    /** The holder's own switch; false when the document is not the person's. */
    setSharing(h: DocumentHolder, documentId: string, enabled: boolean, now: number): boolean {
      const on = enabled ? 1 : 0;
      const run =
        h.sessionIdHash === null
          ? db.sql
              .prepare(
                'UPDATE identity_documents SET share_enabled = ?, updated_at = ? WHERE id = ? AND person_id = ?',
              )
              .run(on, now, documentId, h.personId)
          : db.sql.prepare(SET_SESSION_SHARING).run(h.sessionIdHash, on, now, documentId, h.personId);
      return run.changes === 1;
    },

    /** Removes the switches of sessions that ended and hold no consent in force; returns how many. */
    purgeSessionSharing(now: number): number {
      return db.sql.prepare(PURGE_SESSION_SHARING).run(now).changes;
    },
  };
}
