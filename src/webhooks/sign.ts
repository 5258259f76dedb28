import { hex } from '../crypto/encoding.ts';
import { hmacSha256 } from '../crypto/tokens.ts';

/**
 * The `service-signature` header: `t=<unix>,v1=<hex>` with one `v1` per valid signing secret (two
 * during a rotation's overlap), each an HMAC-SHA256 keyed with the secret's UTF-8 bytes over
 * `t + "." + rawBody`. Computed afresh at each attempt, so `t` is always the attempt's own time.
 */
export async function signatureHeader(t: number, rawBody: string, secrets: string[]): Promise<string> {
  const payload = `${t}.${rawBody}`;
  const sigs = await Promise.all(secrets.map(async (s) => `v1=${hex(await hmacSha256(s, payload))}`));
  return [`t=${t}`, ...sigs].join(',');
}
