import { expect, test } from 'bun:test';
import ipaddr from 'ipaddr.js';
import { addressKey } from '../../src/http/address-key.ts';

test('every spelling of one IPv4 address shares its bucket; IPv6 counts per /64', () => {
  for (const ip of ['192.0.2.7', '192.000.002.007', '0xc0.0.2.7', '::ffff:192.0.2.7', '::ffff:c000:207'])
    expect(addressKey(ip)).toBe('ip:192.0.2.7');
  expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('ip:2001:db8:1:2::/64');
  expect(addressKey('2001:0db8:0001:0002:ffff::9')).toBe('ip:2001:db8:1:2::/64');
  expect(addressKey('not an address')).toBe('ip:not an address');
});

test('the shortcut for plain dotted quads gives the key the full parse gives', () => {
  const octets = [0, 1, 9, 10, 99, 100, 199, 200, 249, 250, 255];
  for (const a of octets)
    for (const b of octets) {
      const ip = `${a}.${b}.${255 - a}.${b}`;
      expect(addressKey(ip)).toBe(`ip:${ipaddr.process(ip).toString()}`);
    }
  for (const ip of ['256.1.1.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.4 '])
    expect(addressKey(ip)).toBe(ipaddr.isValid(ip) ? `ip:${ipaddr.process(ip).toString()}` : `ip:${ip}`);
});
