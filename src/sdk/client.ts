import { type AuthorizationUrlParams, authorizationUrl } from './authorization-url.ts';
import { type CallbackOutcome, DEFAULT_TRANSACTION_TTL_SECONDS, handleCallback } from './callback.ts';
import { type ClaimsRequest, claimsText } from './claims-parameter.ts';
import { type SdkClock, systemClock } from './clock.ts';
import { discover } from './discovery.ts';
import { type DocumentProofClaims, verifyDocumentProof } from './document-proof.ts';
import { IdTokenError, UnexpectedResponseError } from './errors.ts';
import type { FetchLike } from './http.ts';
import {
  type IdTokenAlg,
  type IdTokenClaims,
  type ValidateIdTokenOptions,
  validateIdToken,
} from './id-token.ts';
import { createJwksCache, type JwksCache } from './jwks.ts';
import { keepRequested, parseClaimsRequest } from './requested-claims.ts';
import { getDocument, getDocumentProof, listDocuments, userinfo } from './resources.ts';
import { exchangeCode, revokeToken, type TokenEndpointAuthMethod } from './token.ts';
import type { TransactionStore } from './transaction.store.ts';
import { createTransaction, type Transaction } from './transaction.ts';
import type {
  DiscoveryDocument,
  IdentityDocument,
  IdentityDocumentSummary,
  TokenResponse,
  UserInfo,
} from './types.ts';

export interface VerityClientOptions {
  /** Verity's issuer / API base URL, e.g. `https://id.example.com`. */
  issuer: string;
  clientId: string;
  /** Confidential clients only; keep it on the backend. */
  clientSecret?: string;
  authMethod?: TokenEndpointAuthMethod;
  /** The registered callback URI this backend handles. */
  redirectUri: string;
  store: TransactionStore;
  transactionTtlSeconds?: number;
  fetch?: FetchLike;
  clock?: SdkClock;
  /** The application's registered `id_token_signed_response_alg` (default RS256); no other is accepted. */
  idTokenAlg?: IdTokenAlg;
}

export interface StartSignInInput {
  /** The initiating browser session (an HTTP-only cookie value of the application). */
  sessionId: string;
  scope: string | readonly string[];
  purpose?: string;
  display?: 'page' | 'popup';
  prompt?: 'none' | 'login' | 'consent';
  /** Seconds: the sign-in must be at most this old (`max_age`); the ID token's `auth_time` is checked. */
  maxAge?: number;
  returnTo?: string;
  /** The `claims` parameter, e.g. from `claimsParameter` (verified claims in UserInfo or the ID token). */
  claims?: AuthorizationUrlParams['claims'];
}

/** Everything the callback produced; tokens stay on the backend. */
export interface SignInResult {
  tokens: TokenResponse;
  /** Present when `openid` was granted. */
  claims?: IdTokenClaims;
  scopes: string[];
}

export interface VerityClient {
  readonly options: Readonly<VerityClientOptions>;
  discovery(): Promise<DiscoveryDocument>;
  /**
   * Creates and stores a transaction and returns only what the browser may see: the opaque
   * `transactionId` and the `authorizationUrl`.
   */
  startSignIn(input: StartSignInInput): Promise<{ transactionId: string; authorizationUrl: string }>;
  /** Validates the callback, exchanges the code and validates the ID token (see `handleCallback`). */
  handleCallback(
    callback: string | URL | URLSearchParams,
    sessionId: string | undefined,
  ): Promise<CallbackOutcome<SignInResult>>;
  exchangeCode(code: string, tx: Pick<Transaction, 'codeVerifier' | 'redirectUri'>): Promise<TokenResponse>;
  /** With `accessToken`, an `at_hash` in the ID token must match it. */
  /** With `maxAge` (the transaction's), an older sign-in is refused. */
  validateIdToken(
    idToken: string,
    nonce: string,
    accessToken?: string,
    maxAge?: number,
  ): Promise<IdTokenClaims>;
  /**
   * Revokes an access token (RFC 7009): UserInfo and documents refuse it from then on. Resolves for
   * an unknown, expired or already revoked token too.
   */
  revokeToken(accessToken: string): Promise<void>;
  /**
   * With `expectedSub`, the ID token's `sub`: an answer about anyone else is refused. With `claims`, the
   * `claims` parameter the sign-in sent: what does not meet it is left out (`keepRequested`).
   */
  userinfo(accessToken: string, expectedSub?: string, claims?: ClaimsRequest | string): Promise<UserInfo>;
  listDocuments(accessToken: string): Promise<IdentityDocumentSummary[]>;
  getDocument(accessToken: string, documentReference: string): Promise<IdentityDocument>;
  getDocumentProof(accessToken: string, documentReference: string): Promise<string>;
  /** Checks a proof against the issuer's JWKS (cached; fetched again only for an unknown kid). */
  verifyDocumentProof(jwt: string): Promise<DocumentProofClaims>;
}

/** One client per application environment; discovery and the JWKS are fetched lazily and cached. */
export function createVerityClient(options: VerityClientOptions): VerityClient {
  const issuer = options.issuer.replace(/\/+$/, '');
  const clock = options.clock ?? systemClock;
  const fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
  const ttl = options.transactionTtlSeconds ?? DEFAULT_TRANSACTION_TTL_SECONDS;
  let discovered: Promise<DiscoveryDocument> | undefined;
  let jwks: JwksCache | undefined;

  function discovery(): Promise<DiscoveryDocument> {
    discovered ??= discover(issuer, { fetch: fetchFn, clock }).catch((e) => {
      discovered = undefined; // a failed fetch is retried by the next call
      throw e;
    });
    return discovered;
  }

  async function keys(): Promise<JwksCache> {
    jwks ??= createJwksCache({ jwksUri: (await discovery()).jwks_uri, fetch: fetchFn });
    return jwks;
  }

  async function validate(
    idToken: string,
    nonce: string,
    accessToken: string | undefined,
    checks: Pick<ValidateIdTokenOptions, 'maxAge' | 'signedInSince'>,
  ): Promise<IdTokenClaims> {
    return validateIdToken(idToken, {
      issuer: (await discovery()).issuer,
      clientId: options.clientId,
      nonce,
      ...(accessToken === undefined ? {} : { accessToken }),
      ...checks,
      jwks: await keys(),
      clock,
      ...(options.idTokenAlg ? { alg: options.idTokenAlg } : {}),
    });
  }

  const client: VerityClient = {
    options,
    discovery,
    async startSignIn(input) {
      const endpoint = (await discovery()).authorization_endpoint;
      await options.store.prune(new Date(clock.now().getTime() - ttl * 1000));
      const tx = createTransaction({
        sessionId: input.sessionId,
        redirectUri: options.redirectUri,
        display: input.display ?? 'page',
        ...(input.returnTo === undefined ? {} : { returnTo: input.returnTo }),
        ...(input.maxAge === undefined ? {} : { maxAge: input.maxAge }),
        ...(input.prompt ? { prompt: input.prompt } : {}),
        ...(input.claims ? { claims: claimsText(input.claims) } : {}),
        clock,
      });
      const url = await authorizationUrl({
        authorizationEndpoint: endpoint,
        clientId: options.clientId,
        transaction: tx,
        scope: input.scope,
        ...(input.purpose ? { purpose: input.purpose } : {}),
        ...(input.prompt ? { prompt: input.prompt } : {}),
        ...(input.maxAge === undefined ? {} : { maxAge: input.maxAge }),
        ...(input.claims ? { claims: input.claims } : {}),
      });
      await options.store.save(tx);
      return { transactionId: tx.id, authorizationUrl: url };
    },
    async handleCallback(callback, sessionId) {
      const doc = await discovery();
      return handleCallback<SignInResult>({
        callback,
        sessionId,
        store: options.store,
        issuer,
        issRequired: doc.authorization_response_iss_parameter_supported === true,
        ttlSeconds: ttl,
        clock,
        async complete(code, tx) {
          const tokens = await client.exchangeCode(code, tx);
          const scopes = (tokens.scope ?? '').split(' ').filter(Boolean);
          if (tokens.id_token === undefined) {
            if (scopes.includes('openid'))
              throw new UnexpectedResponseError('openid was granted but no id_token came back');
            return { tokens, scopes };
          }
          const validated = await validate(tokens.id_token, tx.nonce, tokens.access_token, {
            ...(tx.maxAge === undefined ? {} : { maxAge: tx.maxAge }),
            ...(tx.prompt === 'login' ? { signedInSince: new Date(tx.createdAt) } : {}),
          });
          const asked = parseClaimsRequest(tx.claims)?.id_token;
          const claims = keepRequested(asked, validated, clock.now(), wrongSubInIdToken);
          return { tokens, claims, scopes };
        },
      });
    },
    async exchangeCode(code, tx) {
      return exchangeCode({
        tokenEndpoint: (await discovery()).token_endpoint,
        clientId: options.clientId,
        ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
        ...(options.authMethod ? { authMethod: options.authMethod } : {}),
        code,
        redirectUri: tx.redirectUri,
        codeVerifier: tx.codeVerifier,
        fetch: fetchFn,
        clock,
      });
    },
    validateIdToken: (idToken, nonce, accessToken, maxAge) =>
      validate(idToken, nonce, accessToken, maxAge === undefined ? {} : { maxAge }),
    async revokeToken(accessToken) {
      const endpoint = (await discovery()).revocation_endpoint;
      if (typeof endpoint !== 'string')
        throw new UnexpectedResponseError('discovery document has no revocation_endpoint');
      return revokeToken({
        revocationEndpoint: endpoint,
        clientId: options.clientId,
        ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
        ...(options.authMethod ? { authMethod: options.authMethod } : {}),
        accessToken,
        fetch: fetchFn,
        clock,
      });
    },
    async userinfo(accessToken, expectedSub, claims) {
      const info = await userinfo({
        baseUrl: issuer,
        accessToken,
        fetch: fetchFn,
        clock,
        ...(expectedSub ? { expectedSub } : {}),
      });
      const asked = parseClaimsRequest(claims)?.userinfo;
      return keepRequested(asked, info, clock.now(), wrongSubInUserinfo);
    },
    listDocuments: (accessToken) => listDocuments({ baseUrl: issuer, accessToken, fetch: fetchFn, clock }),
    getDocument: (accessToken, documentReference) =>
      getDocument({ baseUrl: issuer, accessToken, documentReference, fetch: fetchFn, clock }),
    getDocumentProof: (accessToken, documentReference) =>
      getDocumentProof({ baseUrl: issuer, accessToken, documentReference, fetch: fetchFn, clock }),
    verifyDocumentProof: async (jwt) =>
      verifyDocumentProof(jwt, {
        jwks: await keys(),
        clientId: options.clientId,
        issuer: (await discovery()).issuer,
        clock,
      }),
  };
  return client;
}

/** The sign-in asked for one person (`claims` with a `sub` value) and the answer is about another. */
const wrongSubInIdToken = () =>
  new IdTokenError('id_token_sub', 'ID token sub is not the one the sign-in asked for');
const wrongSubInUserinfo = () =>
  new UnexpectedResponseError('UserInfo answered for another sub than the sign-in asked for');
