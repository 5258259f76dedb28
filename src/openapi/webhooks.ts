import { z } from 'zod';
import { createBody, historyQuery, redeliverBody, rotateBody, updateBody } from '../api/webhooks.router.ts';
import { ENVIRONMENTS } from '../environment.ts';
import { EVENT_TYPES } from '../webhooks/events.ts';
import {
  apiError,
  internalError,
  rated,
  timestamp,
  tooManyRequests,
  unsupportedMediaType,
  validationFailed,
} from './common.ts';
import { type ApiRoute, route } from './route.ts';

const Environment = z.enum(ENVIRONMENTS);

export const WebhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    environment: Environment,
    description: z.string(),
    enabled: z.boolean(),
    status: z.enum(['enabled', 'disabled']),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const CreatedEndpoint = z.object({
  data: WebhookEndpoint.extend({
    secret: z.string().meta({ description: 'The signing secret (`whsec_…`), shown only in this response.' }),
  }),
});
export const EndpointOne = z.object({ data: WebhookEndpoint });
export const EndpointList = z.object({ data: z.object({ endpoints: z.array(WebhookEndpoint) }) });
export const TestEventSent = z.object({ data: z.object({ eventId: z.string() }) });
export const RotatedSecret = z.object({
  data: z.object({
    id: z.string(),
    secret: z.string().meta({ description: 'The new signing secret, shown only in this response.' }),
    previousSecretExpiresAt: timestamp().meta({
      description: 'Until then the signature header carries a `v1=` for each secret.',
    }),
  }),
});
export const DeliveryHistory = z.object({
  data: z.object({
    deliveries: z.array(
      z
        .object({
          id: z.string(),
          eventId: z.string(),
          eventType: z.string(),
          endpointId: z.string(),
          attempt: z.int(),
          status: z.enum(['delivered', 'retrying', 'failed']),
          responseStatus: z.int().nullable(),
          error: z.string().nullable(),
          durationMs: z.int(),
          attemptedAt: timestamp(),
          nextAttemptAt: timestamp().nullable(),
        })
        .meta({ id: 'DeliveryAttempt' }),
    ),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null at the end.' }),
  }),
});
export const Redelivery = z.object({
  data: z.object({
    eventId: z.string(),
    deliveries: z.array(z.object({ id: z.string(), endpointId: z.string() })),
  }),
});

const app = { applicationId: z.string() };
const endpoint = { ...app, endpointId: z.string() };
const base = '/v1/developer/applications/{applicationId}/webhooks';
const json = ['application/json'];
const ok = (description: string, schema: z.ZodType) => ({ description, schema, headers: rated() });
const errors = {
  401: apiError('`INVALID_API_KEY`: missing, unknown or revoked key, or a key of the other environment.', [
    'WWW-Authenticate',
  ]),
  404: apiError('`NOT_FOUND`: no such application (of this key) or endpoint.', rated()),
  429: tooManyRequests,
  500: internalError,
};

const developerRoute = (r: Omit<Parameters<typeof route>[0], 'tag' | 'security'>): ApiRoute =>
  route({ ...r, tag: 'Webhooks', security: [{ developerApiKey: [] }] });

export const webhookRoutes: ApiRoute[] = [
  developerRoute({
    method: 'post',
    path: base,
    operationId: 'createWebhookEndpoint',
    summary: 'Add webhook endpoint',
    description: 'HTTPS only. The signing secret is in this response and never again.',
    params: z.object(app),
    body: { schema: createBody, contentTypes: json, required: true },
    responses: {
      201: ok('The endpoint and its signing secret.', CreatedEndpoint),
      400: validationFailed,
      415: unsupportedMediaType,
      409: apiError('`ENDPOINT_LIMIT_REACHED`.', rated()),
      ...errors,
    },
  }),
  developerRoute({
    method: 'get',
    path: base,
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    params: z.object(app),
    responses: { 200: ok('The endpoints of this environment.', EndpointList), ...errors },
  }),
  developerRoute({
    method: 'get',
    path: `${base}/deliveries/history`,
    operationId: 'webhookDeliveryHistory',
    summary: 'Delivery history',
    description: 'Newest first, one row per attempt.',
    params: z.object(app),
    query: historyQuery,
    responses: { 200: ok('One page of attempts.', DeliveryHistory), 400: validationFailed, ...errors },
  }),
  developerRoute({
    method: 'post',
    path: `${base}/events/{eventId}/redeliver`,
    operationId: 'redeliverWebhookEvent',
    summary: 'Redeliver an event',
    description: 'With its original id and body, to one endpoint or to every endpoint that had it.',
    params: z.object({ ...app, eventId: z.string() }),
    body: { schema: redeliverBody, contentTypes: json },
    responses: {
      202: ok('The new deliveries.', Redelivery),
      400: validationFailed,
      415: unsupportedMediaType,
      ...errors,
    },
  }),
  developerRoute({
    method: 'get',
    path: `${base}/{endpointId}`,
    operationId: 'getWebhookEndpoint',
    summary: 'One webhook endpoint',
    params: z.object(endpoint),
    responses: { 200: ok('The endpoint.', EndpointOne), ...errors },
  }),
  developerRoute({
    method: 'patch',
    path: `${base}/{endpointId}`,
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint',
    description: 'At least one field.',
    params: z.object(endpoint),
    body: { schema: updateBody, contentTypes: json, required: true },
    responses: {
      200: ok('The endpoint.', EndpointOne),
      400: validationFailed,
      415: unsupportedMediaType,
      ...errors,
    },
  }),
  developerRoute({
    method: 'delete',
    path: `${base}/{endpointId}`,
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    params: z.object(endpoint),
    responses: { 204: { description: 'Deleted.', headers: rated() }, ...errors },
  }),
  developerRoute({
    method: 'post',
    path: `${base}/{endpointId}/test`,
    operationId: 'sendWebhookTestEvent',
    summary: 'Send test event',
    description: 'Queues a `webhook.test` event for this endpoint.',
    params: z.object(endpoint),
    responses: {
      202: ok('The queued event.', TestEventSent),
      409: apiError('`ENDPOINT_DISABLED`.', rated()),
      ...errors,
    },
  }),
  developerRoute({
    method: 'post',
    path: `${base}/{endpointId}/rotate-secret`,
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate signing secret',
    description:
      '`expireCurrentInSeconds` (default 86400, 0 = now) keeps the current secret valid beside the new one for that long.',
    params: z.object(endpoint),
    body: { schema: rotateBody, contentTypes: json },
    responses: {
      200: ok('The new secret.', RotatedSecret),
      400: validationFailed,
      415: unsupportedMediaType,
      ...errors,
    },
  }),
];

const envelope = <T extends z.ZodType>(type: string, data: T) =>
  z
    .object({
      id: z.uuid().meta({ description: 'Event id, stable across retries (also `service-event-id`).' }),
      type: z.literal(type),
      createdAt: timestamp(),
      data,
    })
    .meta({ id: `Event_${type.replace(/\./g, '_')}` });

const consentData = {
  consentId: z.string(),
  applicationId: z.string(),
  environment: Environment,
  sub: z.string(),
  scopes: z.array(z.string()),
  purpose: z.string(),
  at: timestamp(),
};

/** The payloads of the signed lifecycle events (DESIGN.md §5 "Event payloads"). */
export const EVENT_SCHEMAS: Record<(typeof EVENT_TYPES)[number], z.ZodType> = {
  'consent.granted': envelope('consent.granted', z.object(consentData)),
  'consent.revoked': envelope(
    'consent.revoked',
    z.object({
      ...consentData,
      reason: z.enum([
        'revoked_by_person',
        'revoked_by_developer',
        'revoked_by_operator',
        'expired',
        'disconnected',
      ]),
    }),
  ),
  'oauth.authorization.completed': envelope(
    'oauth.authorization.completed',
    z.object({
      applicationId: z.string(),
      environment: Environment,
      sub: z.string(),
      scopes: z.array(z.string()),
      authTime: z.int(),
      acr: z.string(),
    }),
  ),
  'claim_access.completed': envelope(
    'claim_access.completed',
    z.object({
      applicationId: z.string(),
      environment: Environment,
      decision: z.enum(['approved', 'denied', 'failed']),
      reason: z.string().optional(),
      sub: z.string().optional(),
      scopes: z.array(z.string()),
    }),
  ),
  'webhook.test': envelope('webhook.test', z.object({ endpointId: z.string() })),
  'token.revoked': envelope(
    'token.revoked',
    z.object({
      applicationId: z.string(),
      environment: Environment,
      sub: z.string(),
      consentId: z.string(),
      reason: z.literal('revoked_by_client'),
      at: timestamp(),
    }),
  ),
};
