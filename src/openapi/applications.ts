import { z } from 'zod';
import { webOriginsBody } from '../api/applications.router.ts';
import { ENVIRONMENTS } from '../environment.ts';
import { SIGNING_ALGS } from '../keys/signing-algs.ts';
import {
  apiError,
  internalError,
  rated,
  tooManyRequests,
  unsupportedMediaType,
  validationFailed,
} from './common.ts';
import { type ApiRoute, route } from './route.ts';

const DeveloperApplication = z
  .object({
    applicationId: z.string(),
    name: z.string(),
    type: z.enum(['confidential', 'public']),
    policyUri: z.string().nullable(),
    tosUri: z.string().nullable(),
    environment: z.enum(ENVIRONMENTS).meta({ description: "The key's environment." }),
    clientId: z.string(),
    scopes: z.array(z.string()),
    redirectUris: z.array(z.string()),
    webOrigins: z.array(z.string()).meta({
      description: 'Origins whose pages may call the token, UserInfo and documents endpoints (CORS).',
    }),
    postLogoutRedirectUris: z.array(z.string()).meta({
      description: 'Where RP-initiated logout may return the browser (`post_logout_redirect_uri`).',
    }),
    documentTypes: z.array(z.string()),
    documentCountries: z.array(z.string()),
    minimumAcr: z.enum(['none', 'low', 'substantial', 'high']).meta({
      description: 'The lowest assurance level an authorization must reach when the request names none.',
    }),
    idTokenSignedResponseAlg: z.enum(SIGNING_ALGS).meta({
      description: 'How ID tokens are signed for this environment (RFC 7591); the client must accept it.',
    }),
  })
  .meta({ id: 'DeveloperApplication' });

const One = z.object({ data: DeveloperApplication });
const params = z.object({ applicationId: z.string() });
const path = '/v1/developer/applications/{applicationId}';
const errors = {
  401: apiError('`INVALID_API_KEY`: missing, unknown or revoked key, or a key of the other environment.', [
    'WWW-Authenticate',
  ]),
  404: apiError('`NOT_FOUND`: no such application (of this key).', rated()),
  429: tooManyRequests,
  500: internalError,
};

export const applicationRoutes: ApiRoute[] = [
  route({
    method: 'get',
    path,
    operationId: 'getApplication',
    summary: 'One application, as the key’s environment serves it',
    tag: 'Applications',
    security: [{ developerApiKey: [] }],
    params,
    responses: { 200: { description: 'The application.', schema: One, headers: rated() }, ...errors },
  }),
  route({
    method: 'put',
    path: `${path}/web-origins`,
    operationId: 'setSandboxWebOrigins',
    summary: 'Replace the sandbox web origins',
    description:
      'Sandbox keys only: production web origins change in the developer portal, where additions are reviewed.',
    tag: 'Applications',
    security: [{ developerApiKey: [] }],
    params,
    body: { schema: webOriginsBody, contentTypes: ['application/json'], required: true },
    responses: {
      200: { description: 'The application.', schema: One, headers: rated() },
      400: validationFailed,
      415: unsupportedMediaType,
      403: apiError('`PRODUCTION_CHANGE_IN_PORTAL`: a production key.', rated()),
      ...errors,
    },
  }),
];
