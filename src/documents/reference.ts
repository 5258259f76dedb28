import type { AppContext } from '../context.ts';
import { base64url, hex } from '../crypto/encoding.ts';
import { hmacSha256, timingSafeEqual } from '../crypto/tokens.ts';
import { pairwiseSecret } from '../keys/pairwise.ts';
import type { SharedDocument } from './document.store.ts';

/**
 * Keys for document references and proof hashes, derived from the instance secret (the one pairwise
 * subjects use) with a label per purpose, so no value made with one key can be confused with another
 * and nothing new has to be kept on disk. Like pairwise subjects, they are stable across restarts and
 * signing-key rotations.
 */
// Keyed by the context's own Config and derived from the unchanging instance secret: a memo, not state.
const derived = new WeakMap<
  object,
  Promise<{ reference: Uint8Array; proof: Uint8Array; attestation: Uint8Array }>
>();

function keys(ctx: Pick<AppContext, 'config'>) {
  let k = derived.get(ctx.config);
  if (!k) {
    k = pairwiseSecret(ctx).then(async (secret) => ({
      reference: await hmacSha256(secret, 'verity/document-reference/v1'),
      proof: await hmacSha256(secret, 'verity/document-proof/v1'),
      attestation: await hmacSha256(secret, 'verity/attestation-reference/v1'),
    }));
    derived.set(ctx.config, k);
  }
  return k;
}

/**
 * The opaque reference an application sees for a document (DESIGN.md §5): base64url HMAC of the
 * application and document ids. Two applications get unrelated references for one document, so they
 * cannot correlate a person through it, and a reference reveals nothing about the document.
 */
export async function documentReference(
  ctx: Pick<AppContext, 'config'>,
  applicationId: string,
  documentId: string,
): Promise<string> {
  const { reference } = await keys(ctx);
  return base64url(await hmacSha256(reference as Uint8Array<ArrayBuffer>, `${applicationId}:${documentId}`));
}

/** References of the given documents for one application, by document id. */
export async function referencesFor(
  ctx: Pick<AppContext, 'config'>,
  applicationId: string,
  documents: readonly SharedDocument[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const d of documents) out.set(d.id, await documentReference(ctx, applicationId, d.id));
  return out;
}

/**
 * Which of the person's documents a reference names, for this application. References are not stored:
 * the reference of each of the person's documents is computed and compared in constant time, so a
 * reference made for another application or another person never resolves.
 */
export async function resolveReference(
  ctx: Pick<AppContext, 'config'>,
  applicationId: string,
  documents: readonly SharedDocument[],
  reference: string,
): Promise<SharedDocument | undefined> {
  let found: SharedDocument | undefined;
  for (const d of documents)
    if (await timingSafeEqual(await documentReference(ctx, applicationId, d.id), reference)) found = d;
  return found;
}

/**
 * The proof's `attestationId` as one application sees it: the stored attestation id made per
 * application, as the reference is, so that two applications cannot link a document (and its person)
 * through it. `verity persons show --application` prints it for an operator's audit.
 */
export async function attestationReference(
  ctx: Pick<AppContext, 'config'>,
  applicationId: string,
  attestationId: string,
): Promise<string> {
  const { attestation } = await keys(ctx);
  const mac = await hmacSha256(attestation as Uint8Array<ArrayBuffer>, `${applicationId}:${attestationId}`);
  return `att_${base64url(mac)}`;
}

/** What one application sees of a document's ids: for an operator matching what it reports. */
export async function applicationIds(
  ctx: Pick<AppContext, 'config'>,
  applicationId: string,
  doc: { documentId: string; attestationId: string },
): Promise<{ documentReference: string; attestationId: string }> {
  return {
    documentReference: await documentReference(ctx, applicationId, doc.documentId),
    attestationId: await attestationReference(ctx, applicationId, doc.attestationId),
  };
}

/** Bumped when the fields covered by `proofHash` change. */
export const PROOF_SCHEMA_VERSION = '1';

/**
 * The proof's audit hash: a keyed HMAC (hex) over the application, the attestation reference and the
 * attested fields. Keyed, so it cannot be brute-forced back into a document number the way a bare
 * hash of a short number could; per application, so it does not let two applications correlate.
 */
export async function proofHash(
  ctx: Pick<AppContext, 'config'>,
  applicationId: string,
  doc: SharedDocument,
): Promise<string> {
  const { proof } = await keys(ctx);
  const covered = JSON.stringify([
    PROOF_SCHEMA_VERSION,
    applicationId,
    doc.attestationId,
    doc.documentType,
    doc.issuingCountry,
    doc.documentNumber,
    doc.expiryDate,
    doc.validityStatus,
    doc.verifiedAt,
    doc.proofStatus,
  ]);
  return hex(await hmacSha256(proof as Uint8Array<ArrayBuffer>, covered));
}
