import type { FaceChallenge } from './challenge.ts';

/**
 * Face assurance: is the person in front of the camera alive (liveness), and are they the person
 * whose face template the account holds (match)? Providers only decide; captured frames are passed
 * through and never stored.
 */
export interface FaceVerifyInput {
  /** Captured camera frames as `data:image/jpeg;base64,…` URLs. */
  frames: string[];
  /** The account's enrolled face template, as known to the provider. */
  templateRef: string;
  personId: string;
  /** What the camera page lit the frames with (challenge.ts); absent in the sandbox. */
  challenge?: FaceChallenge;
}

export interface FaceCheck {
  passed: boolean;
  /** 0..1, the provider's confidence. */
  score: number;
}

export interface FaceResult {
  liveness: FaceCheck;
  match: FaceCheck;
}

export interface FaceProvider {
  readonly name: string;
  verify(input: FaceVerifyInput): Promise<FaceResult>;
}

/** The provider could not give an answer (unreachable, timed out, malformed reply). */
export class FaceProviderError extends Error {}

/** Both checks passed. */
export const facePassed = (r: FaceResult): boolean => r.liveness.passed && r.match.passed;
