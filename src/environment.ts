/** The two worlds every application, person, key and event belongs to. */
export const ENVIRONMENTS = ['sandbox', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const isEnvironment = (value: unknown): value is Environment =>
  (ENVIRONMENTS as readonly unknown[]).includes(value);
