import ipaddr from 'ipaddr.js';
import { z } from '../zod.ts';

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** What is wrong with a "host:port" listen address ("[::1]:8080" for IPv6), or undefined. */
export function listenProblem(listen: string): string | undefined {
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):(\d+)$/.exec(listen);
  if (!m) return `"${listen}" is not host:port (e.g. "127.0.0.1:8080", "[::1]:8080")`;
  const [, v6, host = '', port] = m;
  if (v6 !== undefined && !ipaddr.IPv6.isValid(v6)) return `"${v6}" is not an IPv6 address`;
  if (v6 === undefined) {
    const numeric = /^[\d.]+$/.test(host);
    if (numeric ? !ipaddr.IPv4.isValidFourPartDecimal(host) : !HOSTNAME.test(host))
      return `"${host}" is not an IPv4 address or host name`;
  }
  const n = Number(port);
  if (n < 1 || n > 65535) return `port ${port} is out of range (1-65535)`;
  return undefined;
}

/** The host of a valid listen address, without IPv6 brackets. */
export const listenHost = (listen: string) =>
  listen.slice(0, listen.lastIndexOf(':')).replace(/^\[|\]$/g, '');

export const listenAddress = (fallback: string) =>
  z._default(z.string(), fallback).check(
    z.superRefine((v, ctx) => {
      const problem = listenProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  );

/** An address, or a CIDR range of them ("10.0.0.0/24", "2001:db8::/64"), for `trusted_proxies`. */
export const addressRange = z
  .string()
  .check(
    z.refine(
      (v) => ipaddr.isValid(v) || ipaddr.isValidCIDR(v),
      'must be an IP address or a CIDR range, e.g. "10.0.0.0/24"',
    ),
  );

/** localhost, *.localhost, 127.0.0.0/8 and ::1: addresses that never leave the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(host)) return false;
  const addr = ipaddr.process(host);
  return addr.range() === 'loopback';
}

/** What is wrong with a public URL of Verity (issuer, surfaces, demo), or undefined. */
export function publicUrlProblem(value: string): string | undefined {
  if (!URL.canParse(value)) return `"${value}" is not an absolute URL (e.g. "https://id.example.com")`;
  const u = new URL(value);
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `must be http:// or https://, not ${u.protocol}//`;
  if (value.includes('?')) return 'must not have a query (?...)';
  if (value.includes('#')) return 'must not have a fragment (#...)';
  if (u.username || u.password) return 'must not carry a user name or password';
  return undefined;
}
