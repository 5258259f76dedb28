// The baseline migration is frozen: a schema change is a new numbered migration (npm run db:generate),
// never an edit of this one, and a test fails when migrations/0000_init.sql no longer has this SHA-256.
// Only before the first release, `bun scripts/db-generate.ts --rebaseline` regenerates 0000_init from
// the whole schema and rewrites this pin (how branches that each changed the schema are merged).
export const BASELINE = {
  name: '0000_init',
  sha256: '3bb4f7cb5ce8e69c115ac38205a53c8ec63d5a950277e5a794a47213ba648f46',
} as const;
