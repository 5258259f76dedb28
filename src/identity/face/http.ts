import { z } from 'zod';
import { type FaceProvider, FaceProviderError, type FaceResult } from './provider.ts';

const check = z.object({ passed: z.boolean(), score: z.number().min(0).max(1) });
const reply = z.object({ liveness: check, match: check });

export interface HttpFaceOptions {
  url: string;
  token: string;
  /** Milliseconds. */
  timeout: number;
  fetch?: typeof fetch;
}

/**
 * Calls an external face-verification service over the JSON contract in `docs/face-provider.md`:
 * `POST {url}` with `Authorization: Bearer {token}` and `{ templateRef, subject, frames, challenge }`, answered
 * by `{ liveness: { passed, score }, match: { passed, score } }`. Anything else — a network error, a
 * timeout, a non-2xx status, a malformed body — is a `FaceProviderError`, never a pass.
 */
export function httpFaceProvider(opts: HttpFaceOptions): FaceProvider {
  const doFetch = opts.fetch ?? fetch;
  return {
    name: 'http',
    async verify({ frames, templateRef, personId, challenge }): Promise<FaceResult> {
      let res: Response;
      try {
        res = await doFetch(opts.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            authorization: `Bearer ${opts.token}`,
          },
          body: JSON.stringify({ templateRef, subject: personId, frames, challenge }),
          redirect: 'error',
          signal: AbortSignal.timeout(opts.timeout),
        });
      } catch (e) {
        const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
        throw new FaceProviderError(
          timedOut
            ? 'the face verification service did not answer in time.'
            : 'the face verification service could not be reached.',
        );
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw new FaceProviderError(`the face verification service answered with status ${res.status}.`);
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        throw new FaceProviderError('the face verification service sent an unreadable answer.');
      }
      const parsed = reply.safeParse(body);
      if (!parsed.success)
        throw new FaceProviderError('the face verification service sent an unexpected answer.');
      return parsed.data;
    },
  };
}
