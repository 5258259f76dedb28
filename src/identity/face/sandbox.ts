import { personaById } from '../personas.ts';
import type { FaceProvider, FaceResult } from './provider.ts';

export type ScriptedOutcome = 'pass' | 'fail_liveness' | 'fail_match';

/**
 * Scripted face assurance for sandbox flows: the result is the outcome the tester chose, except that
 * the persona Eve always fails the match and Finn always fails liveness, whatever was chosen.
 */
export function sandboxFaceProvider(chosen: ScriptedOutcome): FaceProvider {
  return {
    name: 'sandbox',
    async verify({ personId }): Promise<FaceResult> {
      const persona = personaById(personId);
      const liveness = chosen !== 'fail_liveness' && persona?.face !== 'always_fail_liveness';
      // A failed liveness check means there is no live face to match.
      const match = liveness && chosen !== 'fail_match' && persona?.face !== 'always_fail_match';
      return {
        liveness: { passed: liveness, score: liveness ? 0.98 : 0.12 },
        match: { passed: match, score: match ? 0.97 : 0.08 },
      };
    },
  };
}
