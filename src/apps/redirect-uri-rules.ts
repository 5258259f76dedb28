import { ruleViolation } from './rule-error.ts';

/**
 * Registration rules for callback URIs (interface "Application registration"; RFC 6749 §3.1.2, RFC 8252).
 * URIs are stored exactly as given and later matched by string equality (loopback IP literals: any port,
 * see `redirectUriMatches`), so these rules refuse anything whose meaning could differ from its spelling.
 *
 * Private-use schemes (`com.example.app:/cb`, RFC 8252 §7.1) are refused: the interface requires HTTPS
 * except on localhost. Native apps use claimed HTTPS links (§7.2) or the loopback interface (§7.3).
 */

export const MAX_REDIRECT_URI_LENGTH = 2000;
export const MAX_REDIRECT_URIS = 20;

/** The only hosts allowed over plain http. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** The reason `uri` may not be registered, or undefined when it may. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri === '') return 'must not be empty';
  if (uri.length > MAX_REDIRECT_URI_LENGTH)
    return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters long`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(uri)) return 'must not contain spaces or control characters';
  if (uri.includes('*')) return 'wildcards are not allowed';
  if (uri.includes('#')) return 'fragments are not allowed';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1];
  if (!scheme) return 'must be an absolute URI (relative URIs are not allowed)';
  if (scheme !== 'https' && scheme !== 'http')
    return 'must use https (http only for localhost, 127.0.0.1 or [::1]; other schemes are not allowed)';
  const authority = /^https?:\/\/([^/?\\]*)/.exec(uri)?.[1];
  if (authority === undefined || uri.includes('\\'))
    return 'must be an absolute URI of the form https://host/path';
  if (authority.includes('@')) return 'userinfo (user:password@) is not allowed';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not a valid URI';
  }
  const host = authority.replace(/:\d*$/, '');
  if (host === '') return 'must name a host';
  if (host.endsWith('.')) return 'the host must not end with a dot';
  // The parser rewrites hosts (case, percent-escapes, "127.1", "0x7f.0.0.1"); a spelling that it rewrites
  // could name another host than the one a reader sees, so only the canonical spelling is accepted.
  if (url.hostname !== host) return hostSpellingProblem(url, 'lower case, dotted decimal IPv4');
  if (scheme === 'http' && !LOOPBACK_HOSTS.includes(host))
    return 'must use https (http is allowed only for localhost, 127.0.0.1 and [::1])';
  // Likewise the rest: a callback URL is built by the parser, which would resolve "..", drop a default
  // port or escape characters, and send the code somewhere else than the spelling a reviewer approved.
  if (!writtenAsParsed(uri, url))
    return `must be written in canonical form (no "." or ".." segments, no default port, special characters percent-encoded): ${url.href}`;
  return undefined;
}

// A loopback IP literal over http with an optional port, then the path and query (empty, or starting
// with / or ?): anything else after the host (userinfo, `.evil`, a backslash) makes it no loopback URI.
const LOOPBACK_IP_URI = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::([1-9][0-9]{0,4}))?([/?].*)?$/;

function loopbackIpParts(uri: string): { host: string; rest: string } | undefined {
  const m = LOOPBACK_IP_URI.exec(uri);
  if (!m || (m[2] !== undefined && Number(m[2]) > 65535)) return undefined;
  return { host: m[1]!, rest: m[3] ?? '' };
}

/**
 * Whether a requested redirect URI matches a registered one: byte for byte, except that a registered
 * `http://127.0.0.1/…` or `http://[::1]/…` matches the same URI on any port (RFC 8252 §7.3: a native
 * app listens on a port the system gives it at the time). Scheme, host, path and query must still be
 * identical. `localhost` is matched exactly (RFC 8252 §8.3: the name may resolve elsewhere).
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const r = loopbackIpParts(registered);
  const q = r && loopbackIpParts(requested);
  return q !== undefined && r!.host === q.host && r!.rest === q.rest;
}

/**
 * Checks a whole set of callback URIs; throws a ValidationError naming the first broken rule and the URI.
 * Duplicates collapse to one. Returns the set in the order given.
 */
export function checkRedirectUris(uris: readonly string[], opts: { allowEmpty?: boolean } = {}): string[] {
  return checkUriSet(uris, 'redirectUris', 'redirect URI', opts.allowEmpty ?? false);
}

/**
 * The same rules for the URIs RP-initiated logout may return to (`post_logout_redirect_uri`, OpenID
 * Connect RP-Initiated Logout 1.0 §3.1): also matched exactly; none registered is allowed.
 */
export function checkPostLogoutRedirectUris(uris: readonly string[]): string[] {
  return checkUriSet(uris, 'postLogoutRedirectUris', 'post-logout redirect URI', true);
}

function checkUriSet(uris: readonly string[], field: string, label: string, allowEmpty: boolean): string[] {
  const unique = [...new Set(uris)];
  if (unique.length === 0 && !allowEmpty) throw ruleViolation(field, `at least one ${label} is required`);
  if (unique.length > MAX_REDIRECT_URIS)
    throw ruleViolation(field, `at most ${MAX_REDIRECT_URIS} ${label}s may be registered`);
  unique.forEach((uri, i) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw ruleViolation(`${field}[${i}]`, `${label} "${uri}": ${problem}`, problem);
  });
  return unique;
}

/** Whether `raw` is the URL as the parser writes it (only the `/` of an empty path may be left out). */
export const writtenAsParsed = (raw: string, url: URL): boolean =>
  url.href === raw || url.href === raw.replace(/^(https?:\/\/[^/?]*)(?=\?|$)/, '$1/');

/** A host the parser spells otherwise; an international name is asked for in its A-label form. */
export const hostSpellingProblem = (url: URL, rule: string): string =>
  url.hostname.split('.').some((label) => label.startsWith('xn--'))
    ? `the host must be written in its A-label (punycode) form: ${url.hostname}`
    : `the host must be written in canonical form (${rule})`;
