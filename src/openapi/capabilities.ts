import { z } from 'zod';
import { countryCode, documentType } from '../capabilities/capabilities.router.ts';
import { ASSURANCE_LEVELS, CAPTURE_METHODS, DOCUMENT_TYPES } from '../capabilities/data/document-types.ts';
import { ENVIRONMENTS } from '../environment.ts';
import { apiError, internalError, rated, timestamp, tooManyRequests } from './common.ts';
import { type ApiRoute, route } from './route.ts';

const CaptureMethod = z.enum(CAPTURE_METHODS);

export const ScopeList = z.object({
  data: z.object({
    scopes: z.array(
      z
        .object({
          name: z.string(),
          description: z.string(),
          claims: z.array(z.string()).meta({ description: 'UserInfo claims the scope releases.' }),
          sensitivity: z.enum(['basic', 'sensitive', 'restricted']),
          requires: z.array(z.string()).meta({ description: 'Scopes that must be granted beside it.' }),
          environments: z.array(z.enum(ENVIRONMENTS)),
        })
        .meta({ id: 'ScopeCapability' }),
    ),
  }),
});

export const CountryList = z.object({
  data: z.object({
    countries: z.array(
      z.object({
        code: z.string().length(2),
        name: z.string(),
        documentTypes: z.int().meta({ description: 'How many document types are available.' }),
      }),
    ),
  }),
});

export const CountryDetail = z.object({
  data: z.object({
    code: z.string().length(2),
    name: z.string(),
    documentTypes: z.array(
      z.object({ type: z.enum(DOCUMENT_TYPES), captureMethods: z.array(CaptureMethod) }),
    ),
  }),
});

export const CountryDocumentType = z.object({
  data: z
    .object({
      country: z.string().length(2),
      documentType: z.enum(DOCUMENT_TYPES),
      available: z.boolean(),
      captureMethods: z.array(CaptureMethod),
      fields: z.array(z.string()).meta({ description: 'What a verification captures from this document.' }),
      assuranceLevel: z.enum(ASSURANCE_LEVELS),
      updatedAt: timestamp(),
    })
    .meta({ id: 'CountryDocumentCapability' }),
});

const ok = (description: string, schema: z.ZodType) => ({
  description,
  schema,
  headers: rated('Cache-Control'),
});

const common = { 429: tooManyRequests, 500: internalError };
const countryMissing = apiError(
  '`COUNTRY_NOT_SUPPORTED`: unknown or currently unsupported country.',
  rated(),
);

export const capabilityRoutes: ApiRoute[] = [
  route({
    method: 'get',
    path: '/v1/capabilities/scopes',
    operationId: 'scopeCapabilities',
    summary: 'Scope capabilities',
    tag: 'Capabilities',
    responses: {
      200: ok('Every scope with its claims, sensitivity and dependencies.', ScopeList),
      ...common,
    },
  }),
  route({
    method: 'get',
    path: '/v1/capabilities/countries',
    operationId: 'countryCapabilities',
    summary: 'Supported countries',
    tag: 'Capabilities',
    responses: { 200: ok('The currently supported countries and document counts.', CountryList), ...common },
  }),
  route({
    method: 'get',
    path: '/v1/capabilities/countries/{countryCode}',
    operationId: 'countryCapability',
    summary: 'One country',
    tag: 'Capabilities',
    params: z.object({ countryCode }),
    responses: {
      200: ok('The available document types and capture methods.', CountryDetail),
      404: countryMissing,
      ...common,
    },
  }),
  route({
    method: 'get',
    path: '/v1/capabilities/countries/{countryCode}/document-types/{documentType}',
    operationId: 'countryDocumentTypeCapability',
    summary: 'One country-document pair',
    tag: 'Capabilities',
    params: z.object({ countryCode, documentType }),
    responses: {
      200: ok('The current capability details.', CountryDocumentType),
      404: apiError(
        '`COUNTRY_NOT_SUPPORTED`, or `DOCUMENT_TYPE_NOT_SUPPORTED` for a type not available in the country.',
        rated(),
      ),
      ...common,
    },
  }),
];
