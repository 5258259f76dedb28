import { z } from 'zod';
import { DOCUMENT_TYPES } from '../capabilities/data/document-types.ts';
import { apiError, internalError, rated, timestamp, tooManyRequests } from './common.ts';
import { type ApiRoute, route } from './route.ts';

/**
 * The summary fields. `documentReference` and `displayName` always appear; each other field only with
 * its scope (DESIGN.md §5 "Document fields per scope").
 */
export const DocumentSummaryFields = {
  documentReference: z.string().meta({ description: 'Opaque and specific to the application.' }),
  displayName: z.string().meta({
    description:
      'A label for the person to recognise the document by, within the approved scopes: the stored name (such as "German passport") with `document_type` and `document_issuing_country`, the type\'s label (such as "Passport") with `document_type` alone, otherwise "Identity document".',
  }),
  documentType: z.enum(DOCUMENT_TYPES).optional().meta({ description: 'With `document_type`.' }),
  issuingCountry: z
    .string()
    .length(2)
    .optional()
    .meta({ description: 'ISO 3166-1 alpha-2, with `document_issuing_country`.' }),
  validityStatus: z
    .enum(['valid', 'expired', 'revoked', 'suspended'])
    .optional()
    .meta({ description: 'With `document_validity`.' }),
  verified: z.boolean().optional().meta({ description: 'With `document_verified`.' }),
  verifiedAt: timestamp().optional().meta({ description: 'With `document_verified_at`.' }),
};

export const DocumentSummary = z.object(DocumentSummaryFields).meta({ id: 'IdentityDocumentSummary' });

export const DocumentProof = z
  .object({
    type: z.literal('verity_attestation_ref'),
    attestationId: z.string(),
    schemaVersion: z.string(),
    status: z.enum(['active', 'superseded', 'revoked']),
    proofHash: z.string(),
  })
  .meta({
    id: 'DocumentProof',
    description:
      'An audit reference only, not a client-verifiable signature: do not recompute or independently trust `proofHash`.',
  });

export const DocumentDetail = z
  .object({
    ...DocumentSummaryFields,
    expiryDate: z.iso.date().optional().meta({ description: 'With `document_expiry_date`.' }),
    maskedDocumentNumber: z.string().optional().meta({ description: 'With `document_number_masked`.' }),
    documentNumber: z
      .string()
      .optional()
      .meta({ description: 'With `document_number_full`: production only, for approved applications.' }),
    proof: DocumentProof,
  })
  .meta({ id: 'IdentityDocumentDetail' });

export const DocumentList = z.object({ data: z.object({ documents: z.array(DocumentSummary) }) });
export const DocumentOne = z.object({ data: DocumentDetail });

const errors = {
  400: apiError('`invalid_request`: the token was sent in the query string or in more than one way.', [
    'WWW-Authenticate',
  ]),
  401: apiError('`invalid_token`: missing, unknown, expired or revoked token, or the consent ended.', [
    'WWW-Authenticate',
  ]),
  403: apiError(
    '`insufficient_scope`: the scope `identity_documents` was not granted; `ORIGIN_NOT_ALLOWED`: a browser page of an origin the application did not register (no CORS headers).',
    ['WWW-Authenticate', ...rated()],
  ),
  429: tooManyRequests,
  500: internalError,
};

const notFound = apiError(
  '`IDENTITY_DOCUMENT_NOT_FOUND`: unknown, no longer eligible, disabled or no longer shared.',
  rated(),
);

export const documentRoutes: ApiRoute[] = [
  route({
    method: 'get',
    path: '/v1/userinfo/identity-documents',
    operationId: 'listIdentityDocuments',
    summary: 'List documents',
    description:
      'The active, verified, share-enabled documents matching the application policy and the consent. Not paginated.',
    tag: 'Identity documents',
    security: [{ accessToken: [] }],
    responses: { 200: { description: 'The documents.', schema: DocumentList, headers: rated() }, ...errors },
  }),
  route({
    method: 'get',
    path: '/v1/userinfo/identity-documents/{documentReference}',
    operationId: 'getIdentityDocument',
    summary: 'One document',
    tag: 'Identity documents',
    security: [{ accessToken: [] }],
    params: z.object({
      documentReference: z.string().meta({ description: 'An opaque reference from the list.' }),
    }),
    responses: {
      200: { description: 'The approved fields of the document.', schema: DocumentOne, headers: rated() },
      ...errors,
      404: notFound,
    },
  }),
  route({
    method: 'get',
    path: '/v1/userinfo/identity-documents/{documentReference}/proof',
    operationId: 'getIdentityDocumentProof',
    summary: 'A signed proof of one document',
    description:
      'A JWS (RS256, `typ` `verity-document-proof+jwt`, `kid` in the JWKS) verifiable offline with the cached JWKS until its `exp` (`[assurance] proof_ttl`, 30 days by default). Claims: `iss`, `sub` (pairwise), `aud` (the client id), `iat`, `exp`, `jti`, `document` (exactly what the detail answers under this consent) and, when `identity_verified` was approved, `verification` (OIDC4IDA). Same rules as the detail; a revoked consent stops new proofs at once, while a proof already issued stays valid until its `exp`.',
    tag: 'Identity documents',
    security: [{ accessToken: [] }],
    params: z.object({
      documentReference: z.string().meta({ description: 'An opaque reference from the list.' }),
    }),
    responses: {
      200: {
        description: 'The proof, a compact JWS.',
        schema: z.string().regex(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        contentType: 'application/jwt',
        headers: rated(),
      },
      ...errors,
      404: notFound,
    },
  }),
];
