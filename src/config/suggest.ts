import { configSchema } from './schema.ts';

interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  shape?: Record<string, Schema>;
  valueType?: Schema;
}
type Schema = { _zod: { def: Def } };

/** Past defaults, optionals and transforms to the schema that says what a key holds. */
function unwrap(s: Schema): Schema {
  const def = s._zod.def;
  if (def.innerType) return unwrap(def.innerType);
  if (def.type === 'pipe' && def.in) return unwrap(def.in);
  return s;
}

/** The schema at `path`, past its wrappers; undefined for a key the configuration does not have. */
function schemaAt(path: readonly PropertyKey[]): Schema | undefined {
  let s: Schema = unwrap(configSchema as unknown as Schema);
  for (const key of path) {
    const def: Def = s._zod.def;
    const next: Schema | undefined = def.type === 'record' ? def.valueType : def.shape?.[String(key)];
    if (!next) return undefined;
    s = unwrap(next);
  }
  return s;
}

/** The keys the table at `path` accepts (a keyed table's own names, like plan names, are skipped). */
export const knownKeys = (path: readonly PropertyKey[]): string[] =>
  Object.keys(schemaAt(path)?._zod.def.shape ?? {});

/** Whether the key at `path` holds text (a secret, a URL, a duration): a value for it stays a string. */
export const holdsText = (path: readonly PropertyKey[]): boolean =>
  schemaAt(path)?._zod.def.type === 'string';

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The known key closest to a misspelt one, when it is close enough to be what was meant. */
export function closest(word: string, known: string[]): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: { key: string; d: number } | undefined;
  for (const key of known) {
    const d = distance(word.toLowerCase(), key);
    if (d <= limit && (!best || d < best.d)) best = { key, d };
  }
  return best?.key;
}
