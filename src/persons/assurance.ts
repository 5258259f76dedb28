/**
 * Identity assurance levels, lowest first: a person's `assurance_level`, and the `acr` values Verity
 * publishes and issues (an ID token's `acr` is the level the person reached).
 */
export const ASSURANCE_LEVELS = ['none', 'low', 'substantial', 'high'] as const;
export type AssuranceLevel = (typeof ASSURANCE_LEVELS)[number];

export const isAssuranceLevel = (v: string): v is AssuranceLevel =>
  (ASSURANCE_LEVELS as readonly string[]).includes(v);

/** Whether `level` is at or above `required`. */
export const meetsLevel = (level: AssuranceLevel, required: AssuranceLevel) =>
  ASSURANCE_LEVELS.indexOf(level) >= ASSURANCE_LEVELS.indexOf(required);
