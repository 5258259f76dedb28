import type { Environment } from '../environment.ts';
import { hostSpellingProblem, LOOPBACK_HOSTS } from './redirect-uri-rules.ts';
import { ruleViolation } from './rule-error.ts';

/**
 * Registration rules for allowed web origins: the pages (single-page applications) that may call the
 * token, UserInfo and documents endpoints from a browser. An origin is `scheme://host[:port]` and
 * nothing else (RFC 6454); browsers send it in that form, so it is stored normalised (lower-case host,
 * default port dropped) and later compared by string equality.
 */

export const MAX_WEB_ORIGINS = 20;
const MAX_LENGTH = 300;

/** The normalised origin, or the reason it may not be registered in `environment`. */
export function webOriginProblem(
  origin: string,
  environment: Environment,
): { origin: string; problem?: undefined } | { problem: string } {
  const refuse = (problem: string) => ({ problem });
  if (origin === '') return refuse('must not be empty');
  if (origin.length > MAX_LENGTH) return refuse(`must be at most ${MAX_LENGTH} characters long`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(origin)) return refuse('must not contain spaces or control characters');
  if (origin.includes('*')) return refuse('wildcards are not allowed');
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#\\]*)(.*)$/.exec(origin);
  if (!m) return refuse('must be an origin of the form https://host[:port]');
  const [, scheme, authority, rest] = m as unknown as [string, string, string, string];
  if (!['http', 'https'].includes(scheme.toLowerCase()))
    return refuse('must use https (other schemes are not allowed)');
  if (rest !== '')
    return refuse('must be scheme://host[:port] only: no path, query or fragment, not even "/"');
  if (authority.includes('@')) return refuse('userinfo (user:password@) is not allowed');
  if (authority.endsWith(':')) return refuse('the port must be a number');
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return refuse('is not a valid origin');
  }
  const host = authority.replace(/:\d*$/, '').toLowerCase();
  if (host === '') return refuse('must name a host');
  if (host.endsWith('.')) return refuse('the host must not end with a dot');
  // As for redirect URIs: a spelling the parser rewrites ("127.1", percent-escapes) could name another
  // host than the one a reader sees. Only case is normalised.
  if (url.hostname !== host) return refuse(hostSpellingProblem(url, 'dotted decimal IPv4'));
  if (url.protocol === 'http:') {
    if (environment !== 'sandbox') return refuse('must use https in production');
    if (!LOOPBACK_HOSTS.includes(host))
      return refuse('must use https (http is allowed only for localhost, 127.0.0.1 and [::1] in sandbox)');
  }
  return { origin: url.origin };
}

/**
 * Checks a whole set of web origins for `environment`; throws a ValidationError naming the first broken
 * rule and the origin. Returns the normalised set without duplicates, in the order given. May be empty.
 */
export function checkWebOrigins(origins: readonly string[], environment: Environment): string[] {
  const out: string[] = [];
  origins.forEach((given, i) => {
    const r = webOriginProblem(given, environment);
    if (r.problem !== undefined)
      throw ruleViolation(`webOrigins[${i}]`, `web origin "${given}": ${r.problem}`, r.problem);
    if (!out.includes(r.origin)) out.push(r.origin);
  });
  if (out.length > MAX_WEB_ORIGINS)
    throw ruleViolation('webOrigins', `at most ${MAX_WEB_ORIGINS} web origins may be registered`);
  return out;
}

/** The origins of `origins` that production's rules accept (a first approval starts from the sandbox's). */
export const productionWebOrigins = (origins: readonly string[]) =>
  origins.filter((o) => webOriginProblem(o, 'production').problem === undefined);
