import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { type DeveloperApiEnv, identifyDeveloper, requireDeveloper } from '../auth/developer-key.ts';
import type { AppContext } from '../context.ts';
import { ValidationError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';
import { apiErrorResponse } from '../http/errors.ts';
import { byAddress, rateLimit } from '../http/rate-limit.ts';
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

export const createBody = z.object({
  url: z.string(),
  events: z.array(z.string()),
  environment: z.string().optional(),
  description: z.string().optional(),
});

export const updateBody = z
  .object({
    url: z.string().optional(),
    events: z.array(z.string()).optional(),
    enabled: z.boolean().optional(),
    description: z.string().optional(),
  })
  .refine(
    (b) => Object.values(b).some((v) => v !== undefined),
    'give at least one of url, events, enabled, description',
  );

export const rotateBody = z.object({ expireCurrentInSeconds: z.number().int().optional() });
export const redeliverBody = z.object({ endpointId: z.string().optional() });

export const historyQuery = z.object({
  endpointId: z.string().optional(),
  eventId: z.string().optional(),
  status: z.string().optional(),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, 'must be a whole number')
    .transform(Number)
    .optional(),
  cursor: z.string().optional(),
});

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const fields = r.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message }));
  throw new ValidationError('The request is not valid.', fields);
}

/** The JSON body; an empty body reads as `{}` for the endpoints whose fields are all optional. */
async function jsonBody(c: Context<DeveloperApiEnv>): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError('The body is not valid JSON.', [
      { path: '(body)', message: 'must be a JSON object' },
    ]);
  }
}

/** /v1/developer/applications/:applicationId/webhooks/*: thin, the work is in the domain modules. */
export function webhooksRouter(ctx: AppContext) {
  const app = new Hono<DeveloperApiEnv>();
  const base = '/v1/developer/applications/:applicationId/webhooks';
  app.onError((err, c) => apiErrorResponse(err, c as unknown as Context<AppEnv>));
  // `${base}/*` also matches `${base}` itself.
  app.use(`${base}/*`, identifyDeveloper(ctx));
  // Per developer and environment (a developer's keys share it); requests without a valid key count
  // against the client address.
  const keyOf = (c: Context<AppEnv>) => (c as unknown as Context<DeveloperApiEnv>).get('developer');
  const bucketOf = (c: Context<AppEnv>) => {
    const key = keyOf(c);
    return key ? `${key.developerId}:${key.environment}` : byAddress(c);
  };
  const limit = rateLimit(ctx, 'developer', bucketOf, {
    scopeOf: (c) => {
      const key = keyOf(c);
      return key && { environment: key.environment };
    },
  }) as unknown as Parameters<typeof app.use>[1];
  app.use(`${base}/*`, limit);
  app.use(`${base}/*`, requireDeveloper());

  const dev = (c: Context<DeveloperApiEnv>) => c.get('developer');
  const appId = (c: Context<DeveloperApiEnv>) => c.req.param('applicationId')!;

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
