/**
 * A small JSON Schema 2020-12 checker for the keywords the OpenAPI document uses, so the tests can
 * judge real responses by the published document itself (not by the zod schemas it came from).
 * `strict` also reports properties a schema does not declare, which catches a body that grew a field
 * the document does not describe.
 */
type Schema = Record<string, any>;

export function validate(
  doc: Schema,
  schema: Schema,
  value: unknown,
  opts: { strict?: boolean } = {},
): string[] {
  const problems: string[] = [];
  check(schema, value, '$');
  return problems;

  function resolve(s: Schema): Schema {
    if (typeof s.$ref !== 'string') return s;
    const parts = (s.$ref as string).replace(/^#\//, '').split('/');
    let target: any = doc;
    for (const p of parts) target = target?.[p];
    if (!target) throw new Error(`unresolvable ${s.$ref}`);
    return resolve(target);
  }

  function typeOf(v: unknown): string {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'array';
    if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
    return typeof v;
  }

  function check(raw: Schema, v: unknown, at: string): void {
    const s = resolve(raw);
    const sub = (alternatives: Schema[]) =>
      alternatives.filter((alt) => validate(doc, alt, v, opts).length === 0).length;
    if (s.anyOf && sub(s.anyOf) === 0) problems.push(`${at}: matches none of anyOf`);
    if (s.oneOf && sub(s.oneOf) !== 1) problems.push(`${at}: must match exactly one of oneOf`);
    if (s.allOf) for (const part of s.allOf) check(part, v, at);
    if (s.type !== undefined) {
      const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
      const actual = typeOf(v);
      const ok = types.includes(actual) || (actual === 'integer' && types.includes('number'));
      if (!ok) {
        problems.push(`${at}: expected ${types.join('|')}, got ${actual}`);
        return;
      }
    }
    if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(v))
      problems.push(`${at}: expected ${JSON.stringify(s.const)}`);
    if (s.enum && !s.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(v)))
      problems.push(`${at}: ${JSON.stringify(v)} not in ${JSON.stringify(s.enum)}`);
    if (typeof v === 'string') {
      if (s.pattern && !new RegExp(s.pattern, 'u').test(v))
        problems.push(`${at}: does not match ${s.pattern}`);
      if (s.minLength !== undefined && [...v].length < s.minLength) problems.push(`${at}: too short`);
      if (s.maxLength !== undefined && [...v].length > s.maxLength) problems.push(`${at}: too long`);
    }
    if (typeof v === 'number') {
      if (s.minimum !== undefined && v < s.minimum) problems.push(`${at}: below ${s.minimum}`);
      if (s.maximum !== undefined && v > s.maximum) problems.push(`${at}: above ${s.maximum}`);
    }
    if (Array.isArray(v) && s.items) for (const [i, item] of v.entries()) check(s.items, item, `${at}[${i}]`);
    if (typeOf(v) === 'object') {
      const obj = v as Record<string, unknown>;
      for (const key of s.required ?? []) if (!(key in obj)) problems.push(`${at}: missing required ${key}`);
      const props: Record<string, Schema> = s.properties ?? {};
      for (const [key, val] of Object.entries(obj)) {
        if (props[key]) check(props[key], val, `${at}.${key}`);
        else if (
          s.additionalProperties === false ||
          (opts.strict && s.properties && s.additionalProperties === undefined)
        )
          problems.push(`${at}: undeclared property ${key}`);
      }
    }
  }
}
