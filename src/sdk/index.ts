/**
 * Verity's relying-party SDK for a Node, Bun, Deno or edge backend (web standards only). Start with
 * `createVerityClient`; the standalone functions are what it is built from, for other shapes of app.
 * The browser side is `@verity/sdk/browser` (src/sdk/browser/), bundled for the page.
 */

export { type VerifyWebhookInput, type VerifyWebhookResult, verifyWebhook } from '../webhooks/verify.ts';
export { type AuthorizationUrlParams, authorizationUrl } from './authorization-url.ts';
export {
  type CallbackOutcome,
  DEFAULT_TRANSACTION_TTL_SECONDS,
  type HandleCallbackParams,
  handleCallback,
} from './callback.ts';
export {
  type ClaimRequest,
  type ClaimsRequest,
  type ClaimsRequestMember,
  type ClaimsSelection,
  claimsParameter,
  type EvidenceRequest,
  type VerifiedClaimsRequest,
  type VerifiedClaimsSelection,
  verifiedClaimsRequest,
} from './claims-parameter.ts';
export {
  createVerityClient,
  type SignInResult,
  type StartSignInInput,
  type VerityClient,
  type VerityClientOptions,
} from './client.ts';
export { type SdkClock, systemClock } from './clock.ts';
export { discover } from './discovery.ts';
export {
  DOCUMENT_PROOF_TYP,
  type DocumentProofClaims,
  type VerifyDocumentProofOptions,
  verifyDocumentProof,
} from './document-proof.ts';
export { type EndSessionUrlParams, endSessionUrl } from './end-session-url.ts';
export {
  ApiResponseError,
  AuthorizationError,
  CallbackError,
  type CallbackErrorCode,
  DocumentProofError,
  type DocumentProofErrorCode,
  IdTokenError,
  type IdTokenErrorCode,
  OAuthResponseError,
  RateLimitError,
  UnexpectedResponseError,
  VerityError,
} from './errors.ts';
export type { FetchLike } from './http.ts';
export {
  type IdTokenAlg,
  type IdTokenClaims,
  MAX_SKEW_SECONDS,
  type ValidateIdTokenOptions,
  validateIdToken,
} from './id-token.ts';
export { createJwksCache, type JwksCache, type JwksCacheOptions } from './jwks.ts';
export { getDocument, getDocumentProof, listDocuments, type ResourceParams, userinfo } from './resources.ts';
export {
  basicCredentials,
  type ExchangeCodeParams,
  exchangeCode,
  formEncode,
  type RevokeTokenParams,
  revokeToken,
  type TokenEndpointAuthMethod,
} from './token.ts';
export {
  memoryTransactionStore,
  type SqliteLike,
  sqliteTransactionStore,
  type TransactionStore,
} from './transaction.store.ts';
export {
  type CreateTransactionInput,
  codeChallenge,
  createTransaction,
  type Transaction,
} from './transaction.ts';
export type {
  DiscoveryDocument,
  DocumentClaim,
  DocumentEvidence,
  DocumentProof,
  EmailEntry,
  IdentityDocument,
  IdentityDocumentSummary,
  PhoneEntry,
  TokenResponse,
  UserInfo,
  Verification,
  VerifiedClaims,
} from './types.ts';
