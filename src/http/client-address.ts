import ipaddr from 'ipaddr.js';
import type { Config } from '../config/schema.ts';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

// Parsed once per configuration: the address is read on every request.
const parsed = new WeakMap<Config, Range[]>();

function trustedRanges(config: Config): Range[] {
  let ranges = parsed.get(config);
  if (!ranges) {
    ranges = config.server.trusted_proxies.map((r): Range => {
      if (ipaddr.isValidCIDR(r)) return ipaddr.parseCIDR(r);
      const addr = ipaddr.process(r);
      return [addr, addr.kind() === 'ipv4' ? 32 : 128];
    });
    parsed.set(config, ranges);
  }
  return ranges;
}

/** Whether the socket peer is a proxy whose header to believe: loopback, or in `trusted_proxies`. */
function isTrustedProxy(config: Config, peer: string): boolean {
  if (!ipaddr.isValid(peer)) return false;
  const addr = ipaddr.process(peer);
  if (addr.range() === 'loopback') return true;
  return trustedRanges(config).some(([net, bits]) => addr.kind() === net.kind() && addr.match(net, bits));
}

/** A hop as proxies write it ("192.0.2.1", "192.0.2.1:4711", "[2001:db8::1]:443") as an address, if it is one. */
function hopAddress(hop: string): string | undefined {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  const host = bracketed
    ? bracketed[1]!
    : /^[\d.]+:\d+$/.test(hop)
      ? hop.slice(0, hop.lastIndexOf(':'))
      : hop;
  return ipaddr.isValid(host) ? host : undefined;
}

/**
 * The client's address: the socket's, or with `trust_proxy` the last hop of that header (the one our
 * proxy appended; anything before it is client-supplied), believed only from a trusted proxy and only
 * when it is an address. Anyone else reaching the listener could otherwise claim any address: a fresh
 * rate-limit bucket per request, or loopback to read `/metrics`.
 */
export function clientAddress(
  config: Config,
  socketIp: string | undefined,
  header: (name: string) => string | null | undefined,
): string {
  const ip = socketIp ?? 'unknown';
  const proxyHeader = config.server.trust_proxy;
  if (!proxyHeader || !isTrustedProxy(config, ip)) return ip;
  const last = (header(proxyHeader) ?? '').split(',').at(-1)?.trim() ?? '';
  return hopAddress(last) ?? ip;
}
