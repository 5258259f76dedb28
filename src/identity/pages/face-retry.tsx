/** @jsxImportSource hono/jsx */
import type { FaceFailure } from '../../oauth/authorization-request.store.ts';
import type { Messages } from '../messages/index.ts';

/** The face step after failed checks (`flow.ts` faceRetry). */
export interface FaceRetry {
  reason: FaceFailure;
  attemptsLeft: number;
}

/** Why the last face check failed and how many tries are left, announced when the step is shown again. */
export function FaceRetryAlert({ m, retry }: { m: Messages; retry?: FaceRetry }) {
  if (!retry) return null;
  return (
    <p class="alert" role="alert">
      {retry.reason === 'liveness_failed' ? m.faceRetryLiveness : m.faceRetryMatch}{' '}
      {m.faceAttemptsLeft(retry.attemptsLeft)}
    </p>
  );
}
