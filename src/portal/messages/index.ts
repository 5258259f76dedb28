import { en, type Messages } from './en.ts';

/** The portal speaks English; a new language is one more catalogue file of the same shape. */
export function portalMessages(): Messages {
  return en;
}

export type { Messages };
