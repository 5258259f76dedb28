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

/**
 * Reads a JSON success body, or throws the typed error the interface's error shapes describe:
 * 429 → RateLimitError (with Retry-After); `{ error, error_description }` → OAuthResponseError;
 * `{ error: { code, message, requestId } }` → ApiResponseError; a bare Bearer challenge →
 * OAuthResponseError; anything else → UnexpectedResponseError.
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
  if (body?.error && typeof body.error === 'object') {
    const e = body.error as Record<string, unknown>;
    if (typeof e.code === 'string')
      throw new ApiResponseError(
        e.code,
        typeof e.message === 'string' ? e.message : e.code,
        res.status,
        typeof e.requestId === 'string' ? e.requestId : undefined,
      );
  }
  if (challenge) {
    const c = parseBearerChallenge(challenge);
    if (c.error) throw new OAuthResponseError(c.error, c.description, res.status, challenge);
  }
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
