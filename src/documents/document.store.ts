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

// Ordered so "the first" is stable: primary first, then by verification time and id.
const FOR_PERSON = `SELECT id, person_id, document_type, issuing_country, document_number, display_name,
    issue_date, expiry_date, validity_status, verified, verified_at, check_method, share_enabled, status,
    "primary", attestation_id, proof_status
  FROM identity_documents WHERE person_id = ?
  ORDER BY "primary" DESC, verified_at IS NULL, verified_at, id`;

/** Reads of identity documents for the resource side, and the person's sharing switch. */
export function createDocumentStore(db: Db) {
  return {
    forPerson(personId: string): SharedDocument[] {
      return db.sql.prepare<Row>(FOR_PERSON).all(personId).map(documentFromRow);
    },

    /** The person's own switch; false when the document is not theirs. */
    setSharing(personId: string, documentId: string, enabled: boolean, now: number): boolean {
      return (
        db.sql
          .prepare(
            'UPDATE identity_documents SET share_enabled = ?, updated_at = ? WHERE id = ? AND person_id = ?',
          )
          .run(enabled ? 1 : 0, now, documentId, personId).changes === 1
      );
    },
  };
}
