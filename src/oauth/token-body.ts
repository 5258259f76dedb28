import { OAuthError } from '../errors.ts';

const invalid = (description: string) => new OAuthError('invalid_request', description);

/**
 * The token request's parameters from a JSON body (the interface) or a form body (RFC 6749, what
 * standard client libraries send). Every value must be a string and no parameter may appear twice;
 * any other content type is refused.
 */
export function parseTokenBody(contentType: string | undefined, text: string): Record<string, string> {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return parseForm(text);
  if (type === 'application/json') return parseJson(text);
  throw invalid('The body must be application/json or application/x-www-form-urlencoded.');
}

function parseForm(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  // forEach rather than for…of: no iterator and entry arrays per parameter, on every exchange.
  new URLSearchParams(text).forEach((v, k) => {
    if (Object.hasOwn(out, k)) throw invalid(`The parameter ${k} is repeated.`);
    out[k] = v;
  });
  return out;
}

// Consecutive JSON string literals; in a flat object whose values are all strings they alternate
// key, value, key, value, which is how duplicate keys (that JSON.parse silently merges) are found.
const STRING_LITERAL = /"(?:[^"\\]|\\.)*"/g;

function parseJson(text: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('The body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalid('The body must be a JSON object.');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== 'string') throw invalid(`The parameter ${k} must be a string.`);
    out[k] = v;
  }
  const literals = text.match(STRING_LITERAL) ?? [];
  const keys = new Set<string>();
  for (let i = 0; i < literals.length; i += 2) {
    const key = JSON.parse(literals[i]!) as string;
    if (keys.has(key)) throw invalid(`The parameter ${key} is repeated.`);
    keys.add(key);
  }
  return out;
}
