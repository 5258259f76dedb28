import { connect } from 'node:net';

export interface StreamedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Body bytes written before the answer arrived. */
  sent: number;
}

/**
 * POSTs a chunked body of up to `bytes` zero bytes over a raw socket (no Content-Length, so the server
 * can only count it as it comes), stops sending as soon as the answer is complete and returns it.
 * With `declared`, the head announces that Content-Length instead and no body byte is sent: only a
 * server that judges the declared length answers. Fails after `timeoutMs`.
 */
export function streamBody(
  url: string,
  opts: {
    bytes: number;
    contentType: string;
    declared?: number;
    headers?: Record<string, string>;
    timeoutMs?: number;
  },
): Promise<StreamedAnswer> {
  const u = new URL(url);
  const chunk = Buffer.alloc(64 * 1024);
  const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname);
    let sent = 0;
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (err: Error | undefined, answer?: StreamedAnswer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      err ? reject(err) : resolve(answer!);
    };
    const timer = setTimeout(
      () => finish(new Error(`no answer within ${opts.timeoutMs ?? 10_000} ms (${sent} bytes sent)`)),
      opts.timeoutMs ?? 10_000,
    );
    /** The answer once its head and its whole Content-Length body are in. */
    const parsed = (): StreamedAnswer | undefined => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const length = Number(headers['content-length'] ?? Number.NaN);
      const body = received.subarray(end + 4);
      if (!(body.length >= length)) return undefined;
      return { status: Number(statusLine!.split(' ')[1]), headers, body: body.toString('utf8'), sent };
    };
    const write = () => {
      if (opts.declared !== undefined) return;
      while (!done && sent < opts.bytes) {
        sent += chunk.length;
        if (!socket.write(framed)) return void socket.once('drain', write);
      }
      if (!done) socket.write('0\r\n\r\n');
    };
    socket.on('connect', () => {
      const head = [
        `POST ${u.pathname}${u.search} HTTP/1.1`,
        `Host: ${u.host}`,
        `Content-Type: ${opts.contentType}`,
        opts.declared === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${opts.declared}`,
        ...Object.entries(opts.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      write();
    });
    socket.on('data', (data) => {
      received = Buffer.concat([received, data]);
      const answer = parsed();
      if (answer) finish(undefined, answer);
    });
    // A server may close (or reset) once it has answered; only an early end without an answer fails.
    socket.on('error', (e) => {
      const answer = parsed();
      finish(answer ? undefined : e, answer);
    });
    socket.on('close', () => {
      const answer = parsed();
      finish(answer ? undefined : new Error(`closed without an answer after ${sent} bytes`), answer);
    });
  });
}

/** `text` as a request body of `size`-character chunks (sent chunked: no Content-Length). */
export const chunkedBody = (text: string, size: number) =>
  new ReadableStream({
    start(controller) {
      for (let i = 0; i < text.length; i += size)
        controller.enqueue(new TextEncoder().encode(text.slice(i, i + size)));
      controller.close();
    },
  });

/**
 * `text` as a request body whose first bytes go at once and the rest on `release()`: a client still
 * sending when something else happens. Spread `init` into the request (a declared Content-Length).
 */
export function heldBody(text: string) {
  const bytes = new TextEncoder().encode(text);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(bytes.slice(0, 10));
      await held;
      controller.enqueue(bytes.slice(10));
      controller.close();
    },
  });
  return { length: String(bytes.byteLength), init: { body, duplex: 'half' } as RequestInit, release };
}
