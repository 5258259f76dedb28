import { afterAll, describe, expect, test } from 'bun:test';
import { openDb } from '../../src/db/open.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { subscribeTestEndpoint } from '../helpers/apps.ts';
import { waitFor } from '../helpers/wait.ts';
import { FleetBrowser, signInForCode, tokenRequest } from './browser.ts';
import { createClient, type Fleet, startFleet } from './fleet.ts';

const FLOWS = 240;
const CONCURRENCY = 12;

/**
 * A small round-robin load balancer in front of the instances it admitted. A request an instance
 * refused to connect for goes to the next one (it never reached a server); other failures are retried
 * only for GET, as proxies do, since a POST may have been served before the connection broke. Every
 * request gets a connection of its own: on a reused one that breaks before the answer, fetch sends the
 * request again by itself, and the instance's refusal of that second try would hide that the first
 * one reached it (a POST served by the dying instance would then be served again by the survivor).
 */
function roundRobinProxy() {
  let targets: string[] = [];
  let turn = 0;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.arrayBuffer();
      const headers = new Headers(req.headers);
      headers.delete('host');
      while (targets.length > 0) {
        const target = targets[turn++ % targets.length]!;
        try {
          const res = await fetch(`${target}${url.pathname}${url.search}`, {
            method: req.method,
            headers,
            body,
            redirect: 'manual',
            keepalive: false,
          });
          return new Response(res.body, res);
        } catch (e) {
          // A failed instance leaves the rotation (a passive health check).
          targets = targets.filter((t) => t !== target);
          const refused = (e as { code?: string }).code === 'ECONNREFUSED';
          if (!refused && req.method !== 'GET') return new Response('bad gateway', { status: 502 });
        }
      }
      return new Response('no instance answered', { status: 502 });
    },
  });
  return {
    url: `http://localhost:${server.port}`,
    /** Takes an instance into the rotation once its /readyz says it is ready, as load balancers do. */
    async admit(instance: string) {
      await waitFor(`${instance}/readyz to answer 200`, async () => {
        const res = await fetch(`${instance}/readyz`);
        return res.status === 200;
      });
      targets = [...targets, instance];
    },
    stop: () => server.stop(true),
  };
}

let fleet: Fleet | undefined;
let proxy: ReturnType<typeof roundRobinProxy> | undefined;
afterAll(async () => {
  proxy?.stop();
  await fleet?.stop();
});

interface Outcome {
  code?: string;
  /** The token endpoint's status for the code, once asked. */
  exchange?: number;
  accessToken?: string;
  /** UserInfo's status for the token, in the flow (through the proxy). */
  userinfo?: number;
  error?: string;
  /** Started once the victim was dead. */
  afterKill?: boolean;
}

describe('two instances behind a load balancer, one killed mid-load', () => {
  test('concurrent full flows: nothing issued is lost or duplicated', async () => {
    proxy = roundRobinProxy();
    fleet = await startFleet(2, {
      baseUrl: proxy.url,
      extraToml: '[rate_limits.oauth]\nrequests = 100000\n[rate_limits.web]\nrequests = 100000',
    });
    for (const url of fleet.urls) await proxy.admit(url);
    const client = await createClient(fleet, 'Load');
    const setup = await openDb(fleet.dbUrl);
    subscribeTestEndpoint({ db: setup, clock: systemClock }, client.applicationId);
    setup.close();
    const [survivor, victim] = [fleet.urls[0]!, fleet.procs[1]!];

    const outcomes: Outcome[] = [];
    let started = 0;
    let killedAfter = -1;
    const oneFlow = async (i: number): Promise<Outcome> => {
      const out: Outcome = { afterKill: killedAfter >= 0 };
      try {
        // A new browser each time: a persona's consent belongs to the session that gave it.
        const b = new FleetBrowser([proxy!.url], fleet!.baseUrl, '127.0.0.1');
        const { code, verifier } = await signInForCode(b, client, {
          persona: i % 2 ? 'ada' : 'ben',
          purpose: `Load flow ${i}`,
        });
        out.code = code;
        const token = await fetch(
          `${proxy!.url}/v1/oauth/token`,
          tokenRequest(client, code, verifier, '127.0.0.1'),
        );
        out.exchange = token.status;
        if (token.status !== 200) return out;
        out.accessToken = ((await token.json()) as { access_token: string }).access_token;
        const info = await fetch(`${proxy!.url}/v1/userinfo`, {
          headers: { authorization: `Bearer ${out.accessToken}` },
        });
        out.userinfo = info.status;
      } catch (e) {
        out.error = (e as Error).message.slice(0, 300);
      }
      return out;
    };
    const worker = async () => {
      while (started < FLOWS) {
        const i = started++;
        if (killedAfter < 0 && outcomes.length >= FLOWS / 3) {
          killedAfter = outcomes.length;
          victim.kill('SIGKILL');
        }
        outcomes.push(await oneFlow(i));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await victim.exited;

    expect(killedAfter).toBeGreaterThan(0);
    expect(outcomes).toHaveLength(FLOWS);
    const completed = outcomes.filter((o) => o.exchange === 200);
    // Only a POST in flight on the killed instance may fail (the proxy answers 502 for it), at most
    // one per flow running then; the rest completes on the survivor.
    const failed = outcomes.filter((o) => o.exchange !== 200);
    expect(failed.length).toBeLessThanOrEqual(CONCURRENCY);
    for (const o of failed)
      expect(o.exchange ?? o.error).toSatisfy((e) => e === 502 || /answered 502/.test(`${e}`));
    expect(completed.length).toBeGreaterThanOrEqual(FLOWS - CONCURRENCY);
    expect(completed.filter((o) => o.afterKill).length).toBeGreaterThan(0);
    for (const o of completed) expect(o.userinfo).toBe(200);

    // Every code the callbacks carried is distinct, and every token a client received is distinct.
    const codes = outcomes.flatMap((o) => (o.code ? [o.code] : []));
    expect(new Set(codes).size).toBe(codes.length);
    const tokens = completed.map((o) => o.accessToken!);
    expect(new Set(tokens).size).toBe(tokens.length);

    // Every successful exchange's token works on the surviving instance.
    for (const token of tokens) {
      const res = await fetch(`${survivor}/v1/userinfo`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
    }

    const db = await openDb(fleet.dbUrl);
    try {
      // A code is redeemed at most once: one token per redeemed code, none without a code.
      const redeemed = db.sql
        .prepare<{ token_id: string }>('SELECT token_id FROM authorization_codes WHERE token_id IS NOT NULL')
        .all()
        .map((r) => r.token_id);
      expect(new Set(redeemed).size).toBe(redeemed.length);
      const issued = db.sql
        .prepare<{ id: string; revoked_at: number | null }>('SELECT id, revoked_at FROM access_tokens')
        .all();
      expect(issued.map((t) => t.id).sort()).toEqual([...redeemed].sort());
      expect(issued.filter((t) => t.revoked_at !== null)).toEqual([]);
      expect(issued.length).toBeGreaterThanOrEqual(completed.length);

      // Every accepted consent has exactly one consent.granted event, and every event its consent.
      const consents = db.sql
        .prepare<{ id: string }>('SELECT id FROM consents')
        .all()
        .map((r) => r.id);
      const granted = db.sql
        .prepare<{ body: string }>("SELECT body FROM webhook_events WHERE type = 'consent.granted'")
        .all()
        .map((r) => (JSON.parse(r.body) as { data: { consentId: string } }).data.consentId);
      expect([...granted].sort()).toEqual([...consents].sort());
      // One consent per flow that reached Allow (each flow is a new session with its own purpose).
      expect(consents.length).toBeGreaterThanOrEqual(completed.length);
      expect(consents.length).toBeLessThanOrEqual(FLOWS);
    } finally {
      db.close();
    }
    // The survivor shuts down cleanly, as in a rolling restart.
    fleet.procs[0]!.kill('SIGTERM');
    expect(await fleet.procs[0]!.exited).toBe(0);
  }, 90_000);
});
