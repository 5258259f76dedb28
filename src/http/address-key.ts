import ipaddr from 'ipaddr.js';

/**
 * The bucket key of a client address. An IPv6 client usually holds a whole /64 and can pick a fresh
 * address for every request, so IPv6 counts per /64; an IPv4-mapped address counts as its IPv4 address.
 */
export function addressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return `ip:${ip}`;
  const addr = ipaddr.process(ip);
  if (addr.kind() === 'ipv4') return `ip:${addr.toString()}`;
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `ip:${parts.join(':')}::/64`;
}
