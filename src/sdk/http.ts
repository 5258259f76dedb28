import { ApiResponseError, OAuthResponseError, RateLimitError, UnexpectedResponseError } from './errors.ts';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** `Retry-After` as seconds: either delta-seconds or an HTTP date. */
export function retryAfterSeconds(header: string | null, now: Date): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

async function bodyOf(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `error="invalid_token", error_description="…"` out of a Bearer challenge. */
function parseBearerChallenge(header: string): { error?: string; description?: string } {
  const error = /error="([^"]*)"/.exec(header)?.[1];
  const description = /error_description="([^"]*)"/.exec(header)?.[1];
  return { ...(error ? { error } : {}), ...(description ? { description } : {}) };
}

/** The `{ error: { code, message, requestId } }` shape of Verity's API, when the body has it. */
function apiErrorOf(body: Record<string, unknown> | undefined) {
  const e = body?.error;
  if (!e || typeof e !== 'object') return undefined;
  const { code, message, requestId } = e as Record<string, unknown>;
  if (typeof code !== 'string') return undefined;
  return {
    code,
    message: typeof message === 'string' ? message : code,
    ...(typeof requestId === 'string' ? { requestId } : {}),
  };
}

/**
 * Reads a JSON success body, or throws the typed error the interface's error shapes describe:
 * 429 → RateLimitError (with Retry-After); `{ error, error_description }` or a Bearer challenge →
 * OAuthResponseError; `{ error: { code, message, requestId } }` → ApiResponseError; anything else →
 * UnexpectedResponseError.
 */
export async function readJson<T>(res: Response, now: Date): Promise<T> {
  if (res.ok) {
    const body = await bodyOf(res);
    if (body === undefined || body === null || typeof body !== 'object')
      throw new UnexpectedResponseError(`expected a JSON object from ${res.url || 'the server'}`, res.status);
    return body as T;
  }
  const body = (await bodyOf(res)) as Record<string, unknown> | undefined;
  if (res.status === 429) throw new RateLimitError(retryAfterSeconds(res.headers.get('retry-after'), now));
  const challenge = res.headers.get('www-authenticate') ?? undefined;
  if (body && typeof body.error === 'string')
    throw new OAuthResponseError(
      body.error,
      typeof body.error_description === 'string' ? body.error_description : undefined,
      res.status,
      challenge,
    );
  const api = apiErrorOf(body);
  // A Bearer challenge makes it the protected resource's OAuth error (RFC 6750 §3: `invalid_token`,
  // `insufficient_scope`), whatever shape the body has.
  if (challenge && /^Bearer\b/i.test(challenge)) {
    const c = parseBearerChallenge(challenge);
    const code = c.error ?? api?.code;
    if (code)
      throw new OAuthResponseError(
        code,
        c.description ?? api?.message,
        res.status,
        challenge,
        api?.requestId,
      );
  }
  if (api) throw new ApiResponseError(api.code, api.message, res.status, api.requestId);
  throw new UnexpectedResponseError(
    `unexpected HTTP ${res.status} from ${res.url || 'the server'}`,
    res.status,
  );
}

/** Runs fetch, turning network failures into UnexpectedResponseError. */
export async function send(fetchFn: FetchLike, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetchFn(url, { ...init, redirect: 'manual' });
  } catch (e) {
    throw new UnexpectedResponseError(`request to ${url} failed: ${(e as Error).message}`);
  }
}
