import { expect, test } from 'bun:test';
import { fromHex, hex } from '../../src/crypto/encoding.ts';

test('fromHex reads every byte value, in lower and upper case', () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  expect(fromHex(hex(all))).toEqual(all);
  expect(fromHex(hex(all).toUpperCase())).toEqual(all);
  expect(fromHex('')).toEqual(new Uint8Array(0));
  expect([...fromHex('00ff7f80a5')]).toEqual([0x00, 0xff, 0x7f, 0x80, 0xa5]);
});
