/**
 * Verifies a webhook delivery on the receiving side. Self-contained (WebCrypto only) so an integrator
 * can copy it as is; Verity's own tests use it as their receiver.
 *
 * Pass the raw request body exactly as received (before any JSON parsing), the `service-signature`
 * header, and every secret currently valid for the endpoint (two during a rotation). A delivery is
 * accepted when its timestamp is within `toleranceSeconds` of `now` in either direction and one of
 * its `v1` signatures matches one of the secrets, compared in constant time.
 */
export interface VerifyWebhookInput {
  rawBody: string | Uint8Array;
  signatureHeader: string | null | undefined;
  secrets: string[];
  /** The receiver's current time. */
  now: Date;
  toleranceSeconds?: number;
}

export type VerifyWebhookResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed_header' | 'timestamp_out_of_tolerance' | 'no_matching_signature' };

export async function verifyWebhook(input: VerifyWebhookInput): Promise<VerifyWebhookResult> {
  const tolerance = input.toleranceSeconds ?? 300;
  const parsed = parseSignatureHeader(input.signatureHeader);
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const now = Math.floor(input.now.getTime() / 1000);
  if (Math.abs(now - parsed.timestamp) > tolerance)
    return { ok: false, reason: 'timestamp_out_of_tolerance' };

  const encoder = new TextEncoder();
  const body = typeof input.rawBody === 'string' ? encoder.encode(input.rawBody) : input.rawBody;
  const prefix = encoder.encode(`${parsed.timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix, 0);
  signed.set(body, prefix.length);

  let matched = false;
  for (const secret of input.secrets) {
    const key = await crypto.subtle.importKey(
      'raw',
      encoder.encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, signed));
    // Every candidate is compared in full, so the time taken does not say which one matched.
    for (const candidate of parsed.signatures) if (constantTimeEqual(expected, candidate)) matched = true;
  }
  return matched ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'no_matching_signature' };
}

/** `t=<unix>,v1=<hex>[,v1=<hex>…]`; unknown schemes are ignored so new ones can be added alongside. */
export function parseSignatureHeader(
  header: string | null | undefined,
): { timestamp: number; signatures: Uint8Array[] } | undefined {
  if (!header) return undefined;
  let timestamp: number | undefined;
  const signatures: Uint8Array[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return undefined;
      timestamp = Number(value);
    } else if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) {
      signatures.push(Uint8Array.from(value.match(/../g)!, (h) => Number.parseInt(h, 16)));
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
