import { type ClaimsRequest, essentialAcr, parseClaimsRequest } from '../assurance/claims-request.ts';
import { isScope, RESTRICTED_SCOPES } from '../capabilities/scopes.ts';
import type { Config } from '../config/schema.ts';
import { utf8 } from '../crypto/encoding.ts';
import { OAuthError } from '../errors.ts';
import type { AssuranceLevel } from '../persons/assurance.ts';
import { parseAcrValues, requiredAcr } from './acr.ts';
import type { OAuthClient } from './client.store.ts';
import { CHALLENGE } from './pkce.ts';

/** An authorize request once every check has passed. */
export interface ValidAuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  /** Deduplicated, in the order asked. */
  scopes: string[];
  state: string;
  nonce?: string;
  codeChallenge?: string;
  purpose: string;
  display: 'page' | 'popup';
  prompt?: string;
  maxAge?: number;
  loginHint?: string;
  uiLocales?: string;
  /** The lowest assurance level the person must have reached (acr_values and the environment's minimum). */
  requiredAcr?: AssuranceLevel;
  /** The `claims` parameter (OIDC Core §5.5), checked and normalised. */
  claims?: ClaimsRequest;
  /** The pairwise `sub` of a verified `id_token_hint` (authorize-request.ts `checkIdTokenHint`). */
  idTokenHintSub?: string;
}

export interface CheckInput {
  params: URLSearchParams;
  client: OAuthClient;
  config: Config;
  /** The parameter's single value; empty counts as absent (RFC 6749 §3.1). */
  value(name: string): string | undefined;
  draft: Partial<ValidAuthorizeRequest>;
}

export type Check = (input: CheckInput) => void;

const invalid = (description: string) => new OAuthError('invalid_request', description);

/** Caps in UTF-8 bytes: each value is stored with the request and sent back (state) or signed (nonce). */
export const MAX_BYTES = { state: 2048, nonce: 512, login_hint: 256, claims: 4096 } as const;
export const bytes = (v: string) => utf8(v).byteLength;

/** Parameters this endpoint reads; none of them may appear twice. */
export const KNOWN_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'purpose',
  'display',
  'prompt',
  'max_age',
  'login_hint',
  'ui_locales',
  'response_mode',
  'request',
  'request_uri',
  'registration',
  'claims',
  'id_token_hint',
  'acr_values',
] as const;

export const noRepeatedParams: Check = ({ params }) => {
  for (const name of KNOWN_PARAMS) {
    if (params.getAll(name).length > 1) throw invalid(`The parameter ${name} must not be repeated.`);
  }
};

/** Request objects are not supported; nothing is ever fetched from a request_uri. */
export const noRequestObjects: Check = ({ value }) => {
  if (value('request') !== undefined)
    throw new OAuthError('request_not_supported', 'Request objects are not supported.');
  if (value('request_uri') !== undefined)
    throw new OAuthError('request_uri_not_supported', 'The request_uri parameter is not supported.');
  if (value('registration') !== undefined)
    throw new OAuthError('registration_not_supported', 'The registration parameter is not supported.');
};

export const responseType: Check = ({ value }) => {
  const v = value('response_type');
  if (v === undefined) throw invalid('The response_type parameter is required.');
  if (v !== 'code')
    throw new OAuthError('unsupported_response_type', 'Only response_type=code is supported.');
};

export const responseMode: Check = ({ value }) => {
  const v = value('response_mode');
  if (v !== undefined && v !== 'query') throw invalid('Only response_mode=query is supported.');
};

export const scope: Check = ({ value, client, draft }) => {
  const v = value('scope');
  if (v === undefined) throw invalid('The scope parameter is required.');
  const scopes = [...new Set(v.split(' ').filter(Boolean))];
  if (scopes.length === 0) throw invalid('The scope parameter is required.');
  for (const s of scopes) {
    if (!isScope(s)) throw new OAuthError('invalid_scope', `Unknown scope: ${s}.`);
    if (RESTRICTED_SCOPES.includes(s)) {
      if (client.environment === 'sandbox')
        throw new OAuthError('invalid_scope', `The scope ${s} is not available in the sandbox.`);
      if (!client.fullNumberApproved)
        throw new OAuthError('invalid_scope', `The scope ${s} is not approved for this application.`);
    }
    if (!client.scopes.includes(s))
      throw new OAuthError('invalid_scope', `The scope ${s} is not enabled for this application.`);
  }
  draft.scopes = scopes;
};

export const state: Check = ({ value, draft }) => {
  const v = value('state');
  if (v === undefined) throw invalid('The state parameter is required.');
  if (bytes(v) > MAX_BYTES.state) throw invalid(`The state parameter is over ${MAX_BYTES.state} bytes.`);
  draft.state = v;
};

export const nonce: Check = ({ value, draft }) => {
  const v = value('nonce');
  if (v === undefined && draft.scopes?.includes('openid'))
    throw invalid('The nonce parameter is required with the openid scope.');
  if (v !== undefined && bytes(v) > MAX_BYTES.nonce)
    throw invalid(`The nonce parameter is over ${MAX_BYTES.nonce} bytes.`);
  draft.nonce = v;
};

export const pkce: Check = ({ value, client, draft }) => {
  const challenge = value('code_challenge');
  const method = value('code_challenge_method');
  if (challenge === undefined) {
    if (method !== undefined) throw invalid('code_challenge_method was sent without a code_challenge.');
    if (client.type === 'public') throw invalid('Public clients must use PKCE (code_challenge with S256).');
    if (client.pkce === 'required')
      throw invalid('This application must use PKCE (code_challenge with S256).');
    return;
  }
  if (method === undefined) throw invalid('code_challenge_method=S256 is required with a code_challenge.');
  if (method !== 'S256') throw invalid('Only code_challenge_method=S256 is supported.');
  if (!CHALLENGE.test(challenge)) throw invalid('code_challenge must be 43 base64url characters.');
  draft.codeChallenge = challenge;
};

// Shown at consent, so plain text only: no control characters, no markup interpretation anywhere.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export const purpose: Check = ({ value, config, draft }) => {
  const v = (value('purpose') ?? '').trim();
  if (v.length > config.oauth.purpose_max_length)
    throw invalid(`The purpose must be at most ${config.oauth.purpose_max_length} characters.`);
  if (CONTROL.test(v)) throw invalid('The purpose must be plain text on one line.');
  draft.purpose = v;
};

export const display: Check = ({ value, draft }) => {
  const v = value('display') ?? 'page';
  if (v !== 'page' && v !== 'popup') throw invalid('display must be page or popup.');
  draft.display = v;
};

const PROMPTS = new Set(['none', 'login', 'consent']);

export const prompt: Check = ({ value, draft }) => {
  const v = value('prompt');
  if (v === undefined) return;
  const values = [...new Set(v.split(' ').filter(Boolean))];
  for (const p of values) if (!PROMPTS.has(p)) throw invalid(`Unsupported prompt value: ${p}.`);
  if (values.includes('none') && values.length > 1)
    throw invalid('prompt=none cannot be combined with other values.');
  if (values.length) draft.prompt = values.join(' ');
};

export const maxAge: Check = ({ value, draft }) => {
  const v = value('max_age');
  if (v === undefined) return;
  if (!/^\d{1,10}$/.test(v)) throw invalid('max_age must be a non-negative number of seconds.');
  draft.maxAge = Number(v);
};

export const loginHint: Check = ({ value, draft }) => {
  const v = value('login_hint');
  if (v === undefined) return;
  if (bytes(v) > MAX_BYTES.login_hint)
    throw invalid(`The login_hint parameter is over ${MAX_BYTES.login_hint} bytes.`);
  if (CONTROL.test(v)) throw invalid('login_hint is not acceptable.');
  draft.loginHint = v;
};

const LOCALE = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;

export const uiLocales: Check = ({ value, draft }) => {
  const v = value('ui_locales');
  if (v === undefined) return;
  const tags = v.split(' ').filter(Boolean);
  if (tags.length > 10 || !tags.every((t) => LOCALE.test(t)))
    throw invalid('ui_locales must be a space-separated list of language tags.');
  if (tags.length) draft.uiLocales = tags.join(' ');
};

/**
 * The lowest level the person must reach: an essential `acr` in the claims parameter (OIDC Core
 * §5.5.1.1, a requirement) over `acr_values` (§3.1.2.1), never below the environment's minimum.
 */
export const acrValues: Check = ({ value, client, draft }) => {
  const essential = essentialAcr(draft.claims);
  const v = essential ? essential.join(' ') : value('acr_values');
  draft.requiredAcr = requiredAcr(v === undefined ? undefined : parseAcrValues(v), client.minimumAcr);
};

/**
 * The `claims` parameter (OIDC Core §5.5, OIDC4IDA §5.3). It never widens what is released: claims
 * still need an approved scope, so it is checked for its shape only.
 */
export const claims: Check = ({ value, draft }) => {
  const v = value('claims');
  if (v === undefined) return;
  if (bytes(v) > MAX_BYTES.claims) throw invalid(`The claims parameter is over ${MAX_BYTES.claims} bytes.`);
  const parsed = parseClaimsRequest(v);
  if (!parsed.ok) throw invalid(parsed.problem);
  draft.claims = parsed.request;
};

/**
 * Run in this order once the client and redirect URI are known (so errors can be redirected).
 * `scope` runs before `nonce`, which needs to know whether openid was asked for, and `claims` before
 * `acr_values`, since an essential acr claim is a requirement too.
 */
export const AUTHORIZE_CHECKS: readonly [string, Check][] = [
  ['no_repeated_params', noRepeatedParams],
  ['no_request_objects', noRequestObjects],
  ['response_type', responseType],
  ['response_mode', responseMode],
  ['scope', scope],
  ['state', state],
  ['nonce', nonce],
  ['pkce', pkce],
  ['purpose', purpose],
  ['display', display],
  ['prompt', prompt],
  ['max_age', maxAge],
  ['login_hint', loginHint],
  ['ui_locales', uiLocales],
  ['claims', claims],
  ['acr_values', acrValues],
];
