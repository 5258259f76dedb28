import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import type { Db } from '../db/open.ts';
import type { Environment } from '../environment.ts';
import { NotFoundError } from '../errors.ts';
import { type Clock, isoTime, unix } from '../platform/clock.ts';
import { createPersonStore, type DocumentRow, type PersonRow, type PersonStore } from './person.store.ts';

/** What an operator sees of a person: never the password hash, never a full document number. */
export interface PersonSummary {
  personId: string;
  externalId: string;
  environment: Environment;
  status: PersonRow['status'];
  name: string | null;
  email: string | null;
  assuranceLevel: PersonRow['assuranceLevel'];
  identityVerified: boolean;
  documents: number;
  createdAt: string;
  updatedAt: string;
}

/** Names, birth date, nationalities and contacts: what both the operator's detail and UserInfo read. */
export interface PersonProfile {
  givenName: string | null;
  familyName: string | null;
  preferredUsername: string | null;
  locale: string | null;
  legalGivenName: string | null;
  legalFamilyName: string | null;
  /** `YYYY-MM-DD`. */
  birthdate: string | null;
  nationalities: readonly string[];
  emails: readonly { email: string; verified: boolean; primary: boolean }[];
  phones: readonly { phone: string; verified: boolean; primary: boolean }[];
}

export interface PersonDetail extends Omit<PersonSummary, 'email' | 'documents'>, PersonProfile {
  hasPassword: boolean;
  hasPhoto: boolean;
  photoVerified: boolean;
  faceTemplateRef: string | null;
  documents: DocumentSummary[];
}

export interface DocumentSummary {
  documentId: string;
  type: DocumentRow['documentType'];
  issuingCountry: string;
  maskedNumber: string;
  displayName: string;
  issueDate: string | null;
  expiryDate: string;
  validityStatus: DocumentRow['validityStatus'];
  verified: boolean;
  verifiedAt: string | null;
  checkMethod: string | null;
  shareEnabled: boolean;
  primary: boolean;
  status: DocumentRow['status'];
  attestationId: string;
}

/** Only the last three characters stay readable; enough to tell documents apart in a terminal. */
export const maskNumber = (n: string): string =>
  n.length <= 3 ? '*'.repeat(n.length) : '*'.repeat(n.length - 3) + n.slice(-3);

export function listPersons(
  db: Db,
  filter: { environment?: Environment; status?: PersonRow['status'] } = {},
): PersonSummary[] {
  const store = createPersonStore(db);
  return store.list(filter).map((p) => {
    const emails = store.emails(p.id);
    return {
      ...base(p),
      email: (emails.find((e) => e.primary) ?? emails[0])?.email ?? null,
      documents: store.documents(p.id).filter((d) => d.status === 'active').length,
    };
  });
}

/** By person id, or by external id among production persons. */
export function getPerson(db: Db, ref: { personId: string } | { externalId: string }): PersonDetail {
  const store = createPersonStore(db);
  const p = find(store, ref);
  return {
    ...base(p),
    givenName: p.givenName,
    familyName: p.familyName,
    preferredUsername: p.preferredUsername,
    locale: p.locale,
    legalGivenName: p.legalGivenName,
    legalFamilyName: p.legalFamilyName,
    birthdate: p.birthdate,
    nationalities: JSON.parse(p.nationalities) as string[],
    hasPassword: p.passwordHash !== null,
    hasPhoto: p.photo !== null,
    photoVerified: p.photoVerified,
    faceTemplateRef: p.faceTemplateRef,
    emails: store.emails(p.id).map((e) => ({ email: e.email, verified: e.verified, primary: e.primary })),
    phones: store.phones(p.id).map((e) => ({ phone: e.phone, verified: e.verified, primary: e.primary })),
    documents: store.documents(p.id).map((d) => ({
      documentId: d.id,
      type: d.documentType,
      issuingCountry: d.issuingCountry,
      maskedNumber: maskNumber(d.documentNumber),
      displayName: d.displayName,
      issueDate: d.issueDate,
      expiryDate: d.expiryDate,
      validityStatus: d.validityStatus,
      verified: d.verified,
      verifiedAt: isoTime(d.verifiedAt),
      checkMethod: d.checkMethod,
      shareEnabled: d.shareEnabled,
      primary: d.primary,
      status: d.status,
      attestationId: d.attestationId,
    })),
  };
}

/**
 * Marks a person disabled so they can no longer sign in. Idempotent: disabling a disabled person changes
 * nothing and records nothing.
 */
export function disablePerson(
  deps: { db: Db; clock: Clock },
  personId: string,
  opts: { actor?: AuditActor } = {},
): { personId: string; status: 'disabled'; changed: boolean } {
  const store = createPersonStore(deps.db);
  return deps.db.sql.transaction(() => {
    const p = find(store, { personId });
    const changed = store.setStatus(p.id, 'disabled', unix(deps.clock));
    if (changed)
      recordAudit(deps.db, deps.clock, {
        actor: opts.actor ?? 'cli',
        action: 'person.disable',
        target: p.id,
        details: { externalId: p.externalId },
      });
    return { personId: p.id, status: 'disabled' as const, changed };
  });
}

function find(store: PersonStore, ref: { personId: string } | { externalId: string }): PersonRow {
  const p = 'personId' in ref ? store.get(ref.personId) : store.byExternalId('production', ref.externalId);
  if (!p)
    throw new NotFoundError(
      'personId' in ref ? `no person ${ref.personId}` : `no person with external id ${ref.externalId}`,
    );
  return p;
}

function base(p: PersonRow) {
  return {
    personId: p.id,
    externalId: p.externalId,
    environment: p.environment,
    status: p.status,
    name: p.name,
    assuranceLevel: p.assuranceLevel,
    identityVerified: p.identityVerified,
    createdAt: isoTime(p.createdAt),
    updatedAt: isoTime(p.updatedAt),
  };
}
