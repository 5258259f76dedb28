import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type LookupAll,
  OutboundError,
  type PostOptions,
  postOnce,
} from '../../src/platform/outbound-http.ts';
import { addressProblem, type TargetPolicy } from '../../src/webhooks/target-url.ts';

/**
 * The connection-time half of the webhook target rule, driven by resolvers that answer whatever a
 * hostile DNS server could. The address rule is the one deliveries use (`addressProblem`), so these
 * tests follow it if it changes. Names end in `.invalid` (RFC 6761: never resolves), so a request
 * can only reach the loopback server through the address the injected resolver gave.
 */

const PRODUCTION: TargetPolicy = { environment: 'production', allowLocalhostInSandbox: false };
/** `[webhooks] allow_localhost_in_sandbox = true` for a sandbox endpoint: loopback may be called. */
const SANDBOX_LOCALHOST: TargetPolicy = { environment: 'sandbox', allowLocalhostInSandbox: true };

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

interface Seen {
  host: string | undefined;
  localAddress: string | undefined;
  body: string;
}

/** A real HTTP server on 127.0.0.1 that counts TCP connections, not only requests. */
interface LoopbackServer {
  port: number;
  connections: number;
  requests: Seen[];
  stop(): Promise<void>;
}

async function loopbackServer(): Promise<LoopbackServer> {
  const s: LoopbackServer = { port: 0, connections: 0, requests: [], stop: async () => {} };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      s.requests.push({ host: req.headers.host, localAddress: req.socket.localAddress, body });
      res.end('ok');
    });
  });
  server.on('connection', () => {
    s.connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  s.port = (server.address() as AddressInfo).port;
  s.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return s;
}

/**
 * A resolver that gives `answers[0]` to the first question, `answers[1]` to the second, and the last
 * answer to every question after that; it records every name it was asked about.
 */
function fakeResolver(...answers: string[][]): { asked: string[]; lookup: LookupAll } {
  const asked: string[] = [];
  const lookup: LookupAll = (hostname, _options, callback) => {
    const answer = answers[Math.min(asked.length, answers.length - 1)]!;
    asked.push(hostname);
    const list = answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    // Answered later, as a real resolver would.
    setImmediate(() => callback(null, list));
  };
  return { asked, lookup };
}

let server: LoopbackServer;
beforeEach(async () => {
  server = await loopbackServer();
});
afterEach(async () => {
  await server.stop();
});

function post(url: string, policy: TargetPolicy, lookup: LookupAll, extra: Partial<PostOptions> = {}) {
  return postOnce({
    url,
    headers: { 'Content-Type': 'application/json' },
    body: '{"type":"consent.granted"}',
    timeoutMs: 5_000,
    checkAddress: (address) => addressProblem(address, policy),
    lookup,
    ...extra,
  });
}

/** The error postOnce rejected with (fails the test when it resolved). */
async function failure(p: Promise<unknown>): Promise<OutboundError> {
  const outcome = await p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(OutboundError);
  return outcome.error as OutboundError;
}

describe('outgoing webhook HTTP against hostile resolvers', () => {
  test('a name is refused when any address in its answer is private, loopback, link-local or metadata, and nothing is connected', async () => {
    const answers: string[][] = [
      [PUBLIC_V4, '127.0.0.1'],
      ['127.0.0.1', PUBLIC_V4],
      [PUBLIC_V4, PUBLIC_V4, '127.0.0.1'],
      [PUBLIC_V4, '127.8.9.10'],
      [PUBLIC_V4, '10.0.0.1'],
      [PUBLIC_V4, '172.16.5.4'],
      [PUBLIC_V4, '192.168.1.1'],
      [PUBLIC_V4, '169.254.169.254'],
      [PUBLIC_V4, '100.100.100.200'],
      [PUBLIC_V4, '0.0.0.0'],
      [PUBLIC_V6, '::1'],
      [PUBLIC_V6, 'fe80::1'],
      [PUBLIC_V6, 'fd00:ec2::254'],
      [PUBLIC_V4, PUBLIC_V6, '::ffff:169.254.169.254'],
    ];
    for (const answer of answers) {
      const bad = answer.find((a) => a !== PUBLIC_V4 && a !== PUBLIC_V6)!;
      const resolver = fakeResolver(answer);
      const err = await failure(
        post(`http://hooks.example.invalid:${server.port}/hook`, PRODUCTION, resolver.lookup),
      );
      expect({ answer, kind: err.kind }).toEqual({ answer, kind: 'refused_address' });
      expect(err.message).toContain(`hooks.example.invalid resolves to ${bad}: must not point at a`);
      expect(resolver.asked).toEqual(['hooks.example.invalid']);
    }
    expect(server.connections).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  test('private addresses stay refused when loopback is allowed for a sandbox endpoint', async () => {
    for (const bad of ['10.0.0.1', '192.168.1.1', '169.254.169.254', 'fe80::1', '::ffff:10.0.0.1']) {
      const resolver = fakeResolver(['127.0.0.1', bad]);
      const err = await failure(
        post(`http://hooks.example.invalid:${server.port}/hook`, SANDBOX_LOCALHOST, resolver.lookup),
      );
      expect({ bad, kind: err.kind }).toEqual({ bad, kind: 'refused_address' });
      expect(resolver.asked).toHaveLength(1);
    }
    expect(server.connections).toBe(0);
  });

  test('an allowed answer is called on the address that was checked, with the name kept as Host', async () => {
    const resolver = fakeResolver(['127.0.0.1']);
    const res = await post(
      `http://hooks.example.invalid:${server.port}/hook`,
      SANDBOX_LOCALHOST,
      resolver.lookup,
    );
    expect(res.status).toBe(200);
    expect(resolver.asked).toEqual(['hooks.example.invalid']);
    expect(server.connections).toBe(1);
    expect(server.requests).toEqual([
      {
        host: `hooks.example.invalid:${server.port}`,
        localAddress: '127.0.0.1',
        body: '{"type":"consent.granted"}',
      },
    ]);
  });

  test('a rebinding resolver gets one question per attempt and cannot move a connection to a private address', async () => {
    // First answer allowed, every later one private. Had the connection asked again (through this
    // resolver or the system's), it would have been refused or found no address for `.invalid`: the
    // request arriving proves it went to the address that was checked.
    const resolver = fakeResolver(['127.0.0.1'], ['10.0.0.1'], ['169.254.169.254']);
    const url = `http://rebind.example.invalid:${server.port}/hook`;

    const first = await post(url, SANDBOX_LOCALHOST, resolver.lookup);
    expect(first.status).toBe(200);
    expect(resolver.asked).toEqual(['rebind.example.invalid']);
    expect(server.connections).toBe(1);
    expect(server.requests.map((r) => r.localAddress)).toEqual(['127.0.0.1']);

    // The next attempts ask again, get the private answers, and are refused before connecting.
    const second = await failure(post(url, SANDBOX_LOCALHOST, resolver.lookup));
    expect(second.kind).toBe('refused_address');
    expect(second.message).toContain('rebind.example.invalid resolves to 10.0.0.1');
    const third = await failure(post(url, SANDBOX_LOCALHOST, resolver.lookup));
    expect(third.kind).toBe('refused_address');
    expect(third.message).toContain('rebind.example.invalid resolves to 169.254.169.254');

    expect(resolver.asked).toHaveLength(3);
    expect(server.connections).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  test('a rebinding resolver whose first answer is private is refused on the first attempt', async () => {
    const resolver = fakeResolver(['127.0.0.1'], [PUBLIC_V4]);
    const err = await failure(
      post(`http://rebind.example.invalid:${server.port}/hook`, PRODUCTION, resolver.lookup),
    );
    expect(err.kind).toBe('refused_address');
    expect(resolver.asked).toHaveLength(1);
    expect(server.connections).toBe(0);
  });

  test('IPv4-mapped IPv6 answers are judged as the IPv4 address they carry', async () => {
    const ranges: [string, string][] = [
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:10.0.0.1', 'private'],
      ['::ffff:7f00:1', 'loopback'],
      ['::ffff:a9fe:a9fe', 'linkLocal'],
    ];
    for (const [mapped, range] of ranges) {
      const resolver = fakeResolver([mapped]);
      const err = await failure(
        post(`http://hooks.example.invalid:${server.port}/hook`, PRODUCTION, resolver.lookup),
      );
      expect({ mapped, kind: err.kind }).toEqual({ mapped, kind: 'refused_address' });
      expect(err.message).toContain(`resolves to ${mapped}: must not point at a ${range} address`);
    }
    expect(server.connections).toBe(0);
  });

  test('IPv4-mapped IPv6 literals in the URL are refused without asking the resolver', async () => {
    const resolver = fakeResolver([PUBLIC_V4]);
    const ranges: [string, string][] = [
      ['[::ffff:127.0.0.1]', 'loopback'],
      ['[::ffff:10.0.0.1]', 'private'],
      ['[::ffff:a9fe:a9fe]', 'linkLocal'],
    ];
    for (const [host, range] of ranges) {
      const err = await failure(post(`http://${host}:${server.port}/hook`, PRODUCTION, resolver.lookup));
      expect({ host, kind: err.kind }).toEqual({ host, kind: 'refused_address' });
      expect(err.message).toContain(`must not point at a ${range} address`);
    }
    expect(resolver.asked).toHaveLength(0);
    expect(server.connections).toBe(0);
  });

  test('a literal IP in the URL bypasses the resolver but is still checked', async () => {
    // The resolver would answer with an allowed address; a literal must not be able to borrow it.
    const resolver = fakeResolver([PUBLIC_V4]);
    for (const host of [
      '127.0.0.1',
      '2130706433',
      '0x7f.1',
      '127.1',
      '[::1]',
      '169.254.169.254',
      '10.0.0.1',
    ]) {
      const err = await failure(post(`http://${host}:${server.port}/hook`, PRODUCTION, resolver.lookup));
      expect({ host, kind: err.kind }).toEqual({ host, kind: 'refused_address' });
      expect(err.message).toContain('must not point at a');
    }
    expect(resolver.asked).toHaveLength(0);
    expect(server.connections).toBe(0);

    // Allowed literal: called directly, still without a question to the resolver.
    const res = await post(`http://127.0.0.1:${server.port}/hook`, SANDBOX_LOCALHOST, resolver.lookup);
    expect(res.status).toBe(200);
    expect(resolver.asked).toHaveLength(0);
    expect(server.requests.map((r) => [r.host, r.localAddress])).toEqual([
      [`127.0.0.1:${server.port}`, '127.0.0.1'],
    ]);
  });
});
