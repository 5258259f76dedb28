import { type SdkClock, systemClock } from './clock.ts';
import { UnexpectedResponseError } from './errors.ts';
import { type FetchLike, readJson, send } from './http.ts';
import type { IdentityDocument, IdentityDocumentSummary, UserInfo } from './types.ts';

export interface ResourceParams {
  /** The API base URL (the issuer), e.g. `https://id.example.com`. */
  baseUrl: string;
  accessToken: string;
  fetch?: FetchLike;
  clock?: SdkClock;
}

async function get<T>(p: ResourceParams, path: string): Promise<T> {
  const url = `${p.baseUrl.replace(/\/+$/, '')}${path}`;
  const res = await send(p.fetch ?? fetch, url, {
    headers: { accept: 'application/json', authorization: `Bearer ${p.accessToken}` },
  });
  return readJson<T>(res, (p.clock ?? systemClock).now());
}

/**
 * `GET /v1/userinfo`: the pairwise `sub` and the approved claims only. Absent claims stay `undefined`;
 * none is filled in with `false`. A revoked or expired authorization fails with `invalid_token`. With
 * `expectedSub` (the ID token's), an answer about anyone else is refused (OIDC Core §5.3.2).
 */
export async function userinfo(p: ResourceParams & { expectedSub?: string }): Promise<UserInfo> {
  const info = await get<UserInfo>(p, '/v1/userinfo');
  if (typeof info.sub !== 'string') throw new UnexpectedResponseError('UserInfo response has no sub');
  if (p.expectedSub !== undefined && info.sub !== p.expectedSub)
    throw new UnexpectedResponseError('UserInfo answered for another sub than the ID token names');
  return info;
}

/** `GET /v1/userinfo/identity-documents` (needs `identity_documents`; 403 `insufficient_scope` otherwise). */
export async function listDocuments(p: ResourceParams): Promise<IdentityDocumentSummary[]> {
  const body = await get<{ data?: { documents?: IdentityDocumentSummary[] } }>(
    p,
    '/v1/userinfo/identity-documents',
  );
  if (!Array.isArray(body.data?.documents))
    throw new UnexpectedResponseError('identity-documents response has no data.documents');
  return body.data.documents;
}

/**
 * A document's path. References are base64url; anything else (`..` above all, which the URL would
 * resolve) could send the access token to another path, so it is refused before any request.
 */
function documentPath(reference: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(reference)) throw new TypeError('documentReference must be base64url');
  return `/v1/userinfo/identity-documents/${reference}`;
}

/** `GET /v1/userinfo/identity-documents/:documentReference`; 404 `IDENTITY_DOCUMENT_NOT_FOUND` when it no longer resolves. */
export async function getDocument(
  p: ResourceParams & { documentReference: string },
): Promise<IdentityDocument> {
  const body = await get<{ data?: IdentityDocument }>(p, documentPath(p.documentReference));
  if (!body.data || typeof body.data.documentReference !== 'string')
    throw new UnexpectedResponseError('identity-document response has no data');
  return body.data;
}

/**
 * `GET /v1/userinfo/identity-documents/:documentReference/proof`: the document as a signed JWT, to keep
 * or pass on and check later with `verifyDocumentProof`. The same errors as `getDocument`.
 */
export async function getDocumentProof(p: ResourceParams & { documentReference: string }): Promise<string> {
  const url = `${p.baseUrl.replace(/\/+$/, '')}${documentPath(p.documentReference)}/proof`;
  const res = await send(p.fetch ?? fetch, url, {
    headers: { accept: 'application/jwt', authorization: `Bearer ${p.accessToken}` },
  });
  if (!res.ok) await readJson(res, (p.clock ?? systemClock).now());
  const jwt = (await res.text()).trim();
  if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(jwt))
    throw new UnexpectedResponseError('identity-document proof response is not a JWT', res.status);
  return jwt;
}
