import { expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import {
  decodeReply,
  decodeRequest,
  encodeReply,
  encodeRequest,
  type SigningRequest,
} from '../../src/platform/signing-messages.ts';

test('a request crosses as one string and comes back whole: keys, kids to drop, jobs in order', () => {
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const request: SigningRequest = {
    id: 42,
    add: [['kid-a', jwk as JsonWebKey]],
    drop: ['kid-old', 'kid-older'],
    jobs: [
      ['kid-a', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0'],
      ['kid-a', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIyIn0'],
      // Whatever a part holds, it comes back as it went: a newline, an empty string.
      ['kid\nb', 'line one\nline two'],
      ['', ''],
    ],
  };
  const text = encodeRequest(request);
  expect(typeof text).toBe('string');
  expect(decodeRequest(text)).toEqual(request);
  const none: SigningRequest = { id: 1, add: [], drop: [], jobs: [] };
  expect(decodeRequest(encodeRequest(none))).toEqual(none);
});

test('a reply keeps each signature in its place, and one the thread could not make stays null', () => {
  const reply = { id: 7, signatures: ['c2lnLTE', null, 'c2lnLTM'] };
  expect(decodeReply(encodeReply(reply))).toEqual(reply);
  expect(decodeReply(encodeReply({ id: 8, signatures: [null] }))).toEqual({ id: 8, signatures: [null] });
});
