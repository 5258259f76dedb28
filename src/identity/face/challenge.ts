import { base64url, fromBase64url } from '../../crypto/encoding.ts';

/**
 * The face step's challenge: an unpredictable value, and the colours the camera page lights the
 * screen with, one for each frame it takes, derived from it. Frames recorded elsewhere, or for an
 * earlier check, were not lit by them; the provider sees both and may refuse a replay
 * (docs/face-provider.md#challenge).
 */
export interface FaceChallenge {
  value: string;
  colours: string[];
}

/** How long after it was made a challenge may be answered. */
export const FACE_CHALLENGE_SECONDS = 180;

/**
 * Until this old, an unused challenge is shown again rather than replaced, so reloading the step
 * cannot draw colour sequences until one matches frames recorded before.
 */
export const FACE_CHALLENGE_REUSE_SECONDS = 120;

/** Frames the camera page takes, and a check needs: 8 × 7⁴ = 19,208 colour sequences. */
export const CHALLENGE_FRAMES = 5;

const COLOURS = ['#ff0000', '#00ff00', '#0000ff', '#ffff00', '#ff00ff', '#00ffff', '#ffffff', '#ff8000'];

/** 128 random bits, base64url. */
export const newFaceChallengeValue = (): string => base64url(crypto.getRandomValues(new Uint8Array(16)));

/** The challenge of a value: each colour differs from the one before it, so every frame sees a change. */
export function faceChallenge(value: string): FaceChallenge {
  const bytes = fromBase64url(value);
  const colours: string[] = [];
  let at = bytes[0]! % COLOURS.length;
  colours.push(COLOURS[at]!);
  for (let i = 1; i < CHALLENGE_FRAMES; i++) {
    at = (at + 1 + (bytes[i]! % (COLOURS.length - 1))) % COLOURS.length;
    colours.push(COLOURS[at]!);
  }
  return { value, colours };
}
