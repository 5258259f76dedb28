import { isLoopbackHost, listenHost } from './address.ts';
import type { Config } from './schema.ts';

/** Settings that are fine for trying Verity and risky in production: reported, never refused. */
export function configWarnings(config: Config): string[] {
  const { server, identity, face, demo, email, webhooks, database } = config;
  const https = server.base_url.startsWith('https:');
  const out: string[] = [];
  if (!https)
    out.push(
      `[server] base_url ${server.base_url} is plain http: codes and tokens would cross the network unencrypted; use https in production`,
    );
  if (identity.sandbox)
    out.push(
      https
        ? `[identity] sandbox = true on an https issuer (${server.base_url}): anyone can sign in as a built-in test persona on this production-looking instance; set it to false`
        : '[identity] sandbox = true: the built-in test personas are offered; set it to false in production',
    );
  if (demo.enabled)
    out.push(
      '[demo] enabled = true: `verity demo --with-server` runs the demo application; set it to false in production',
    );
  if (face.provider === 'none')
    out.push(
      '[face] provider = "none": production sign-ins stop at the face check; configure "http" in production',
    );
  if (email.transport === 'log' && https)
    out.push(
      `[email] transport = "log" on an https issuer (${server.base_url}): every mail, developer password-reset and address-verification links among them, is written to the log, so whoever reads the log can take over a developer account; configure transport = "smtp"`,
    );
  if (email.transport === 'smtp' && !email.starttls && email.password !== '')
    out.push(
      '[email] starttls = false with a password: the SMTP login, and the links in every mail, cross the network in clear; use STARTTLS',
    );
  if (webhooks.allow_localhost_in_sandbox && https)
    out.push(
      `[webhooks] allow_localhost_in_sandbox = true on an https issuer (${server.base_url}): any sandbox developer can have Verity post to any port of this machine and read the answers' status in the delivery history; it is for local development`,
    );
  if (
    face.provider === 'http' &&
    face.http_url.startsWith('http:') &&
    !isLoopbackHost(new URL(face.http_url).hostname)
  )
    out.push(
      `[face] http_url ${face.http_url} is plain http to another machine: every camera frame and the http_token cross the network in clear; use https`,
    );
  const plainDatabase = database.url && unencryptedRemote(database.url);
  if (plainDatabase)
    out.push(
      `[database] url names ${plainDatabase} without sslmode: the driver connects in clear, so personal data and hashes cross the network unencrypted; add ?sslmode=verify-full (or require)`,
    );
  if (
    server.trust_proxy !== '' &&
    server.trusted_proxies.length === 0 &&
    !isLoopbackHost(listenHost(server.listen))
  )
    out.push(
      `[server] listen ${server.listen} is reachable from other machines and trusted_proxies is empty: the ${server.trust_proxy} header is believed only from loopback peers, so a load balancer on another machine counts as every client; list its addresses, e.g. trusted_proxies = ["10.0.0.5"]`,
    );
  if (server.trust_proxy === '' && !isLoopbackHost(listenHost(server.listen)))
    out.push(
      `[server] listen ${server.listen} is reachable from other machines and trust_proxy is empty: behind a reverse proxy every client shares the proxy's address (rate limits, sign-in throttling); name its header, e.g. trust_proxy = "x-forwarded-for"`,
    );
  // An https issuer on a loopback listener sits behind a proxy on this machine: every request it
  // forwards comes from loopback, which /metrics trusts without a token.
  else if (server.trust_proxy === '' && https)
    out.push(
      `[server] base_url is https and listen ${server.listen} is loopback, so a proxy on this machine forwards every request, and trust_proxy is empty: every client counts as loopback, so /metrics answers anyone${server.metrics_token ? '' : ' (no metrics_token is set)'} and all clients share one address (rate limits, sign-in throttling); name the proxy's header, e.g. trust_proxy = "x-forwarded-for"`,
    );
  return out;
}

/** The host of a PostgreSQL URL on another machine reached without TLS (no `sslmode`, or `disable`). */
function unencryptedRemote(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const u = new URL(url);
  // A Unix socket (`?host=/run/postgresql`, or no host at all) stays on this machine.
  if (!u.hostname || isLoopbackHost(u.hostname) || u.searchParams.get('host')?.startsWith('/'))
    return undefined;
  const mode = u.searchParams.get('sslmode') ?? u.searchParams.get('ssl');
  return mode === null || mode === 'disable' || mode === 'false' ? u.hostname : undefined;
}
