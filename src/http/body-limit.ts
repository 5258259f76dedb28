/**
 * The body as text, or undefined if it is larger than `maxSize`, for a handler served without hono
 * (the token endpoint), so without hono's bodyLimit. A declared length is judged as declared (the
 * server holds the body to it) without turning the buffered body into a stream, which under Bun
 * every later read would go through; a chunked body is counted as it streams and not read past the
 * limit.
 */
export async function readTextWithin(req: Request, maxSize: number): Promise<string | undefined> {
  const length = req.headers.get('content-length');
  if (length !== null && !req.headers.has('transfer-encoding'))
    return Number.parseInt(length, 10) > maxSize ? undefined : req.text();
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxSize) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
