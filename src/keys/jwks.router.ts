import { setImmediate } from 'node:timers';
import { JWKS_MAX_AGE_SECONDS } from '../config/schema.ts';
import type { AppContext } from '../context.ts';
import { publicDocument } from '../http/public-document.ts';
import type { Routes } from '../platform/listen.ts';

const PATH = '/.well-known/jwks.json';

/**
 * The body, with the key set's version read once per turn of the event loop rather than per request:
 * that read is mostly SQLite's WAL read lock (docs/architecture.md#numbers). Every request answered in
 * a turn had arrived before the turn's read, so its answer is as fresh as a read of its own.
 */
function oncePerTurn(body: () => string | Promise<string>): () => string | Promise<string> {
  let read: string | undefined;
  return () => {
    if (read !== undefined) return read;
    const b = body();
    if (typeof b === 'string') {
      read = b;
      setImmediate(() => {
        read = undefined;
      });
    }
    return b;
  };
}

/** /.well-known/jwks.json, ahead of hono; the body is cached by the key service until keys change. */
export const jwksRoutes = (ctx: AppContext): Routes => ({
  [PATH]: {
    GET: publicDocument(
      ctx,
      PATH,
      oncePerTurn(() => ctx.keys.jwksBody()),
      `public, max-age=${JWKS_MAX_AGE_SECONDS}`,
    ),
  },
});
