import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';
import { byAddress, rateLimit } from '../http/rate-limit.ts';
import { z } from '../zod.ts';
import { liveCapabilities } from './availability.ts';
import { normalizeCountry, normalizeDocumentType } from './catalogue.ts';
import { DOCUMENT_TYPES } from './data/document-types.ts';
import { publicScope, SCOPE_CATALOGUE } from './scope-catalogue.ts';

/** Clients cache briefly and must expect a capability to disappear between discovery and use. */
const CACHE = { 'Cache-Control': 'public, max-age=60' };

const scopesBody = { data: { scopes: SCOPE_CATALOGUE.map(publicScope) } };

// Any country code Verity does not serve, however malformed, is simply not supported: one answer for
// "XX", "DEU" and "%00" alike, so a client needs one error path.
export const countryCode = z.pipe(z.pipe(z.string(), z.transform(normalizeCountry)), z.string());
export const documentType = z.pipe(
  z.pipe(z.string(), z.transform(normalizeDocumentType)),
  z.enum(DOCUMENT_TYPES),
);

const countryNotSupported = (raw: string) =>
  new ApiError(
    'COUNTRY_NOT_SUPPORTED',
    normalizeCountry(raw)
      ? `Country ${normalizeCountry(raw)} is not supported.`
      : 'Not a supported country: use an ISO 3166-1 alpha-2 code such as DE.',
    404,
    undefined,
    CACHE,
  );
const typeNotSupported = (country: string) =>
  new ApiError(
    'DOCUMENT_TYPE_NOT_SUPPORTED',
    `This document type is not supported for ${country} (types: ${DOCUMENT_TYPES.join(', ')}).`,
    404,
    undefined,
    CACHE,
  );

/** /v1/capabilities/*: public, rate-limited per IP, cacheable for a minute. */
export function capabilitiesRouter(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  const current = liveCapabilities(ctx.db);

  app.use('/v1/capabilities/*', rateLimit(ctx, 'capabilities', byAddress));

  app.get('/v1/capabilities/scopes', (c) => c.json(scopesBody, 200, CACHE));

  app.get('/v1/capabilities/countries', (c) => c.json(current().countries, 200, CACHE));

  app.get('/v1/capabilities/countries/:countryCode', (c) => {
    const raw = c.req.param('countryCode');
    const country = countryCode.safeParse(raw);
    const body = country.success ? current().country(country.data) : undefined;
    if (!body) throw countryNotSupported(raw);
    return c.json(body, 200, CACHE);
  });

  app.get('/v1/capabilities/countries/:countryCode/document-types/:documentType', (c) => {
    const raw = { countryCode: c.req.param('countryCode'), documentType: c.req.param('documentType') };
    const bodies = current();
    const country = countryCode.safeParse(raw.countryCode);
    if (!country.success || !bodies.country(country.data)) throw countryNotSupported(raw.countryCode);
    const type = documentType.safeParse(raw.documentType);
    const body = type.success ? bodies.pair(country.data, type.data) : undefined;
    if (!body) throw typeNotSupported(country.data);
    return c.json(body, 200, CACHE);
  });

  return app;
}
