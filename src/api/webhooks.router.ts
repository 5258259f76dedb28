import { type Context, Hono } from 'hono';
import type { DeveloperApiEnv } from '../auth/developer-key.ts';
import type { AppContext } from '../context.ts';
import type { AppEnv } from '../http/env.ts';
import { apiErrorResponse } from '../http/errors.ts';
import { deliveryHistory, redeliverEvent } from '../webhooks/deliveries.ts';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from '../webhooks/endpoints.ts';
import { z } from '../zod.ts';
import { appId, dev, developerGuard, jsonBody, parse } from './developer-api.ts';

const optionalText = z.optional(z.string());

export const createBody = z.strictObject({
  url: z.string(),
  events: z.array(z.string()),
  environment: optionalText,
  description: optionalText,
});

export const updateBody = z
  .strictObject({
    url: optionalText,
    events: z.optional(z.array(z.string())),
    enabled: z.optional(z.boolean()),
    description: optionalText,
  })
  .check(
    z.refine(
      (b) => Object.values(b).some((v) => v !== undefined),
      'give at least one of url, events, enabled, description',
    ),
  );

export const rotateBody = z.strictObject({ expireCurrentInSeconds: z.optional(z.int()) });
export const redeliverBody = z.strictObject({ endpointId: optionalText });

export const historyQuery = z.object({
  endpointId: optionalText,
  eventId: optionalText,
  status: optionalText,
  limit: z.optional(
    z.pipe(z.string().check(z.regex(/^\d{1,4}$/, 'must be a whole number')), z.transform(Number)),
  ),
  cursor: optionalText,
});

/** /v1/developer/applications/:applicationId/webhooks/*: thin, the work is in the domain modules. */
export function webhooksRouter(ctx: AppContext) {
  const app = new Hono<DeveloperApiEnv>();
  const base = '/v1/developer/applications/:applicationId/webhooks';
  app.onError((err, c) => apiErrorResponse(err, c as unknown as Context<AppEnv>));
  // `${base}/*` also matches `${base}` itself.
  app.use(`${base}/*`, ...developerGuard(ctx));

  app.post(base, async (c) => {
    const body = parse(createBody, await jsonBody(c));
    return c.json({ data: await createEndpoint(ctx, dev(c), appId(c), body) }, 201);
  });
  app.get(base, (c) => c.json({ data: { endpoints: listEndpoints(ctx, dev(c), appId(c)) } }));

  app.get(`${base}/deliveries/history`, (c) => {
    const q = parse(historyQuery, c.req.query());
    return c.json({ data: deliveryHistory(ctx, dev(c), appId(c), q) });
  });
  app.post(`${base}/events/:eventId/redeliver`, async (c) => {
    const body = parse(redeliverBody, await jsonBody(c));
    return c.json({ data: redeliverEvent(ctx, dev(c), appId(c), c.req.param('eventId'), body) }, 202);
  });

  app.get(`${base}/:endpointId`, (c) =>
    c.json({ data: getEndpoint(ctx, dev(c), appId(c), c.req.param('endpointId')) }),
  );
  app.patch(`${base}/:endpointId`, async (c) => {
    const body = parse(updateBody, await jsonBody(c));
    return c.json({ data: await updateEndpoint(ctx, dev(c), appId(c), c.req.param('endpointId'), body) });
  });
  app.delete(`${base}/:endpointId`, (c) => {
    deleteEndpoint(ctx, dev(c), appId(c), c.req.param('endpointId'));
    return c.body(null, 204);
  });
  app.post(`${base}/:endpointId/test`, (c) =>
    c.json({ data: sendTestEvent(ctx, dev(c), appId(c), c.req.param('endpointId')) }, 202),
  );
  app.post(`${base}/:endpointId/rotate-secret`, async (c) => {
    const body = parse(rotateBody, await jsonBody(c));
    return c.json({ data: await rotateSecret(ctx, dev(c), appId(c), c.req.param('endpointId'), body) });
  });
  return app as unknown as Hono<AppEnv>;
}
