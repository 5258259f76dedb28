// The baseline migration is frozen: a schema change is a new numbered migration (npm run db:generate),
// never an edit of this one, and a test fails when migrations/0000_init.sql no longer has this SHA-256.
// Only before the first release, `bun scripts/db-generate.ts --rebaseline` regenerates 0000_init from
// the whole schema and rewrites this pin (how branches that each changed the schema are merged).
export const BASELINE = {
  name: '0000_init',
  sha256: '3ca2b414cf6d26e687e2b3dec6c11619e1aecf1b8c8f2c5ad349f36ee716b5e6',
} as const;
