/** @jsxImportSource hono/jsx */
import type { FaceRetry } from '../flow.ts';
import type { Messages } from '../messages/index.ts';

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
