import ipaddr from 'ipaddr.js';

// A canonical dotted quad is its own key; parsing it with ipaddr costs about 20 times as much.
const DOTTED_QUAD = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * The bucket key of a client address. An IPv6 client usually holds a whole /64 and can pick a fresh
 * address for every request, so IPv6 counts per /64; an IPv4-mapped address counts as its IPv4 address.
 */
export function addressKey(ip: string): string {
  if (DOTTED_QUAD.test(ip)) return `ip:${ip}`;
  if (!ipaddr.isValid(ip)) return `ip:${ip}`;
  const addr = ipaddr.process(ip);
  if (addr.kind() === 'ipv4') return `ip:${addr.toString()}`;
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `ip:${parts.join(':')}::/64`;
}
