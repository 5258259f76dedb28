import { base64url as joseBase64url } from 'jose';

/** Unpadded base64url of bytes or of a string's UTF-8; jose's encoder uses the runtime's native one. */
export function base64url(data: Uint8Array | string): string {
  return joseBase64url.encode(data);
}

export function fromBase64url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export const utf8 = (text: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(text);
