import { type Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AppContext } from '../context.ts';
import { unix } from '../platform/clock.ts';
import { BROWSER_HELPER_JS } from '../sdk/browser/bundle.gen.ts';
import {
  AuthorizationError,
  CallbackError,
  type IdentityDocument,
  type IdentityDocumentSummary,
  type UserInfo,
  type VerityClient,
  VerityError,
  verifyWebhook,
} from '../sdk/index.ts';
import type { DemoStore } from './demo.store.ts';
import { errorPage, popupCompletePage, signedInPage, signedOutPage, webhooksPage } from './pages.ts';
import type { DemoRegistration } from './registration.ts';

/** Binds transactions to the browser before sign-in; never holds anything but a random id. */
const BROWSER_COOKIE = 'verity_demo_browser';
/** The signed-in session, created only after the callback validated everything. */
const SESSION_COOKIE = 'verity_demo_session';

const PURPOSE = 'Show you what a relying party receives from Verity (demo)';

export interface DemoAppOptions {
  ctx: AppContext;
  client: VerityClient;
  store: DemoStore;
  registration: DemoRegistration;
  /** The demo's own URL (its origin is the completion message's target). */
  url: string;
}

const randomId = () => {
  const b = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...b))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
};

export function createDemoApp(o: DemoAppOptions): Hono<{ Variables: { nonce: string } }> {
  const { ctx, client, store, registration } = o;
  const origin = new URL(o.url).origin;
  const secure = o.url.startsWith('https:');
  const cookieOpts = { httpOnly: true, sameSite: 'Lax' as const, path: '/', secure };
  const app = new Hono<{ Variables: { nonce: string } }>();

  app.use(async (c, next) => {
    const nonce = randomId();
    c.set('nonce', nonce);
    await next();
    c.header(
      'Content-Security-Policy',
      `default-src 'self'; script-src 'self' 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`,
    );
    c.header('X-Content-Type-Options', 'nosniff');
    // The callback URL carries the code: never leak it in a Referer. Elsewhere the referrer stays within
    // the demo: under no-referrer Chromium sends `Origin: null` with the page's own form posts, and the
    // Sign out form's origin check would refuse them.
    c.header('Referrer-Policy', c.req.path === '/callback' ? 'no-referrer' : 'same-origin');
    c.header('Cache-Control', 'no-store');
  });

  function browserId(c: Context): string {
    let id = getCookie(c, BROWSER_COOKIE);
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) {
      id = randomId();
      setCookie(c, BROWSER_COOKIE, id, cookieOpts);
    }
    return id;
  }

  app.get('/sdk/verity-browser.js', (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    return c.body(BROWSER_HELPER_JS);
  });

  app.get('/', async (c) => {
    browserId(c);
    const nonce = c.get('nonce');
    const sid = getCookie(c, SESSION_COOKIE);
    const session = sid ? store.findSession(sid) : undefined;
    if (!session) return c.html(signedOutPage(nonce));

    let userinfo: UserInfo | undefined;
    let userinfoError: string | undefined;
    let documents: IdentityDocumentSummary[] | undefined;
    let documentsError: string | undefined;
    let documentDetail: IdentityDocument | undefined;
    try {
      userinfo = await client.userinfo(session.accessToken, session.sub);
    } catch (e) {
      // The token is all the session holds: once Verity refuses it (consent revoked, or expired), the
      // session is over, and the person is told why and offered a new sign-in instead of stale claims.
      if (e instanceof VerityError && e.code === 'invalid_token') {
        store.deleteSession(session.id);
        deleteCookie(c, SESSION_COOKIE, { path: '/', secure });
        return c.html(signedOutPage(nonce, describe(e)));
      }
      userinfoError = describe(e);
    }
    if (session.scopes.includes('identity_documents')) {
      try {
        documents = await client.listDocuments(session.accessToken);
        if (documents[0])
          documentDetail = await client.getDocument(session.accessToken, documents[0].documentReference);
      } catch (e) {
        documentsError = describe(e);
      }
    } else documentsError = 'identity_documents was not granted.';
    return c.html(
      signedInPage(nonce, {
        sub: session.sub,
        claims: session.claims,
        scopes: session.scopes,
        ...(userinfo ? { userinfo } : { userinfoError }),
        ...(documents ? { documents } : { documentsError }),
        ...(documentDetail ? { documentDetail } : {}),
        accountUrl: `${ctx.config.server.identity_url}/account`,
      }),
    );
  });

  // The opener page's only backend call: returns nothing but transactionId and authorizationUrl.
  app.post('/auth/transaction', async (c) => {
    if (c.req.header('origin') !== origin || !c.req.header('content-type')?.startsWith('application/json'))
      return c.json({ error: 'cross-origin or non-JSON request refused' }, 403);
    const body = (await c.req.json().catch(() => ({}))) as { display?: unknown };
    const display = body.display === 'popup' ? 'popup' : 'page';
    const started = await client.startSignIn({
      sessionId: browserId(c),
      scope: registration.scopes,
      purpose: PURPOSE,
      display,
    });
    return c.json({ transactionId: started.transactionId, authorizationUrl: started.authorizationUrl });
  });

  app.get('/callback', async (c) => {
    const nonce = c.get('nonce');
    try {
      const { transaction, result } = await client.handleCallback(c.req.url, getCookie(c, BROWSER_COOKIE));
      if (!result.claims) throw new VerityError('no_id_token', 'openid was not granted');
      const old = getCookie(c, SESSION_COOKIE);
      if (old) store.deleteSession(old);
      // A fresh id after sign-in, so no session id chosen before it can be carried over.
      const id = randomId();
      store.saveSession({
        id,
        sub: result.claims.sub,
        claims: result.claims,
        accessToken: result.tokens.access_token,
        scopes: result.scopes,
        expiresAt: unix(ctx.clock) + result.tokens.expires_in,
      });
      setCookie(c, SESSION_COOKIE, id, { ...cookieOpts, maxAge: result.tokens.expires_in });
      if (transaction.display === 'popup') return c.html(popupCompletePage(nonce, transaction.id, origin));
      return c.redirect('/', 303);
    } catch (e) {
      if (!(e instanceof VerityError)) throw e;
      const message =
        e instanceof AuthorizationError
          ? (e.description ?? 'Verity did not authorize the sign-in.')
          : e instanceof CallbackError
            ? 'This callback does not belong to a sign-in this browser started, or it was already used or took too long.'
            : e.message;
      return c.html(errorPage(nonce, e.code, message), 400);
    }
  });

  app.post('/signout', async (c) => {
    if (c.req.header('origin') && c.req.header('origin') !== origin)
      return c.text('cross-origin request refused', 403);
    const sid = getCookie(c, SESSION_COOKIE);
    const session = sid ? store.findSession(sid) : undefined;
    if (session) {
      store.deleteSession(session.id);
      // As integration.md advises: the token ends now, not 15 minutes later. Signed out either way.
      await client.revokeToken(session.accessToken).catch(() => undefined);
    }
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure });
    return c.redirect('/', 303);
  });

  app.get('/webhooks', (c) =>
    c.html(webhooksPage(c.get('nonce'), store.listWebhooks(), registration.webhook?.url)),
  );

  // Verified against the raw body before parsing; the event id is stored before anything else, and a
  // retried delivery of a stored id is acknowledged without being processed again.
  app.post('/webhooks/receive', async (c) => {
    if (!registration.webhook) return c.json({ error: 'no webhook endpoint registered' }, 404);
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const verified = await verifyWebhook({
      rawBody: raw,
      signatureHeader: c.req.header('service-signature'),
      secrets: [registration.webhook.secret],
      now: ctx.clock.now(),
    });
    if (!verified.ok) return c.json({ error: verified.reason }, 400);
    let event: { id?: unknown; type?: unknown; createdAt?: unknown; data?: unknown };
    try {
      event = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      return c.json({ error: 'body is not JSON' }, 400);
    }
    if (
      typeof event.id !== 'string' ||
      typeof event.type !== 'string' ||
      event.id !== c.req.header('service-event-id')
    )
      return c.json({ error: 'malformed event' }, 400);
    store.recordWebhook({
      id: event.id,
      type: event.type,
      createdAt: typeof event.createdAt === 'string' ? event.createdAt : '',
      receivedAt: unix(ctx.clock),
      data: event.data ?? null,
    });
    return c.json({ received: true });
  });

  return app;
}

function describe(e: unknown): string {
  if (e instanceof VerityError) {
    if (e.code === 'invalid_token')
      return "invalid_token: Verity refused this application's access token (your consent was revoked, or the 15-minute token expired).";
    return `${e.code}: ${e.message}`;
  }
  return 'Verity could not be reached.';
}
