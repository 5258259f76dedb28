import { type Context, Hono } from 'hono';
import { type ApplicationView, getApplication } from '../apps/application.store.ts';
import { environmentSettings } from '../apps/environment-settings.ts';
import { updateApplication } from '../apps/registration.ts';
import type { DeveloperApiEnv } from '../auth/developer-key.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';
import { apiErrorResponse } from '../http/errors.ts';
import { assertApplicationAccess } from '../webhooks/access.ts';
import { z } from '../zod.ts';
import { appId, dev, developerGuard, jsonBody, parse } from './developer-api.ts';

export const webOriginsBody = z.strictObject({ webOrigins: z.array(z.string()).check(z.maxLength(100)) });

/** The application as its key's environment serves it; never a secret. */
export const applicationJson = (a: ApplicationView, environment: string) => {
  const e = a.environments.find((x) => x.environment === environment)!;
  return {
    applicationId: a.applicationId,
    name: a.name,
    type: a.type,
    policyUri: a.policyUri,
    tosUri: a.tosUri,
    ...environmentSettings(e),
  };
};

/**
 * /v1/developer/applications/:applicationId: what an integrator configures its client with, read in
 * the key's environment; and the sandbox's web origins, which a developer may set from a script (a dev
 * server on a new port). Production settings change only in the portal, where widening is reviewed.
 */
export function applicationsRouter(ctx: AppContext) {
  const app = new Hono<DeveloperApiEnv>();
  const base = '/v1/developer/applications/:applicationId';
  app.onError((err, c) => apiErrorResponse(err, c as unknown as Context<AppEnv>));
  app.use(base, ...developerGuard(ctx));
  app.use(`${base}/web-origins`, ...developerGuard(ctx));

  const owned = (c: Context<DeveloperApiEnv>) => {
    assertApplicationAccess(ctx.db, dev(c), appId(c));
    return applicationJson(getApplication(ctx.db, appId(c)), dev(c).environment);
  };

  app.get(base, (c) => c.json({ data: owned(c) }));

  app.put(`${base}/web-origins`, async (c) => {
    owned(c);
    const key = dev(c);
    if (key.environment !== 'sandbox')
      throw new ApiError(
        'PRODUCTION_CHANGE_IN_PORTAL',
        'Production web origins change in the developer portal, where additions are reviewed.',
        403,
      );
    const body = parse(webOriginsBody, await jsonBody(c));
    const updated = updateApplication(ctx.db, ctx.clock, appId(c), {
      environment: 'sandbox',
      webOrigins: body.webOrigins,
      actor: `developer:${key.developerId}`,
    });
    return c.json({ data: applicationJson(updated, 'sandbox') });
  });
  return app as unknown as Hono<AppEnv>;
}
