import ipaddr from 'ipaddr.js';
import type { Environment } from '../environment.ts';

/**
 * Which webhook targets Verity will call (DESIGN.md §5 "Webhook targets"). A webhook URL is chosen by a
 * developer but fetched by the server, so it must never become a way to reach the server's own
 * network: loopback, private, link-local, unique-local, carrier-grade NAT, cloud metadata and every
 * other non-unicast range are refused. The rule runs at registration and again on the address each
 * connection actually uses, so a name that later resolves elsewhere (DNS rebinding) is still refused.
 */
export interface TargetPolicy {
  environment: Environment;
  /** `[webhooks] allow_localhost_in_sandbox`: sandbox endpoints may then call this machine. */
  allowLocalhostInSandbox: boolean;
}

export const MAX_URL_LENGTH = 2048;

/**
 * What a developer is told when a target is refused or cannot be reached. Which address a name resolved
 * to, which range it is in, or the errno of a failed connection would map the server's network for
 * whoever registers URLs; that detail goes to the server log only.
 */
export const TARGET_NOT_ALLOWED = 'target not allowed';
export const TARGET_UNREACHABLE = 'target unreachable';

/** `localhost` and every name under it are loopback by definition (RFC 6761 §6.3), trailing dot or not. */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** The URL as written, minus the brackets around an IPv6 literal. */
export const urlHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

function localhostAllowed(policy: TargetPolicy): boolean {
  return policy.environment === 'sandbox' && policy.allowLocalhostInSandbox;
}

/**
 * Problems with the URL as written (length, scheme, credentials, fragment), safe to show the developer;
 * where it points is `hostProblem`'s. Undefined when the URL is acceptable.
 */
export function urlProblem(raw: string, policy: TargetPolicy): string | undefined {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not contain credentials';
  if (url.hash || raw.includes('#')) return 'must not contain a fragment';
  const host = urlHost(url);
  const isLocalName = isLocalhostName(host);
  const literal = ipaddr.isValid(host) ? ipaddr.parse(host) : undefined;
  const isLoopback = isLocalName || (literal !== undefined && rangeOf(literal) === 'loopback');
  if (url.protocol === 'http:') {
    if (!(isLoopback && localhostAllowed(policy)))
      return localhostAllowed(policy)
        ? 'must use https (plain http is allowed only for localhost)'
        : 'must use https';
  } else if (url.protocol !== 'https:') {
    return 'must use https';
  }
  return undefined;
}

/**
 * Registration: where a URL that passed `urlProblem` points, judged without resolving it: a literal
 * address by its range, and a localhost name as this machine whatever a resolver answers today
 * (`localhost.` or `api.localhost` may not resolve here yet and resolve to loopback elsewhere). A
 * name is then judged by the addresses it resolves to, at registration and on every connection.
 */
export function hostProblem(raw: string, policy: TargetPolicy): string | undefined {
  const host = urlHost(new URL(raw));
  if (ipaddr.isValid(host)) return addressProblem(host, policy);
  if (isLocalhostName(host) && !localhostAllowed(policy)) return refusedMessage('loopback');
  return undefined;
}

/** Why an address may not be called (undefined = it may). */
export function addressProblem(address: string, policy: TargetPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  const range = rangeOf(ipaddr.parse(address));
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && localhostAllowed(policy)) return undefined;
  return refusedMessage(range);
}

function refusedMessage(range: string): string {
  return `must not point at a ${range} address`;
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * ipaddr.js range names; an IPv4-mapped IPv6 address is judged as the IPv4 address it carries. An
 * IPv6 address ipaddr.js calls unicast but that lies outside 2000::/3, the only block allocated for
 * global unicast (e.g. the deprecated IPv4-compatible `::127.0.0.1`), is reserved.
 */
function rangeOf(addr: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (addr.kind() === 'ipv4') return addr.range();
  const v6 = addr as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  const range = v6.range();
  return range === 'unicast' && !v6.match(GLOBAL_UNICAST_V6) ? 'reserved' : range;
}
