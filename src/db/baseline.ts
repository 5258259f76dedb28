// The baseline migration is frozen: a schema change is a new numbered migration (npm run db:generate),
// never an edit of this one, and a test fails when migrations/0000_init.sql no longer has this SHA-256.
// Only before the first release, `bun scripts/db-generate.ts --rebaseline` regenerates 0000_init from
// the whole schema and rewrites this pin (how branches that each changed the schema are merged).
export const BASELINE = {
  name: '0000_init',
  sha256: 'c22fa0a8fd23f50a0bafcf4c01a040168cb95c1857995a67e7c53b395630db49',
} as const;
