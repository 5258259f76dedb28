import { z } from 'zod';
import type { Config } from '../config/schema.ts';
import { applicationRoutes } from './applications.ts';
import { capabilityRoutes } from './capabilities.ts';
import { HEADERS } from './common.ts';
import { documentRoutes } from './documents.ts';
import { oauthRoutes } from './oauth.ts';
import { oidcRoutes } from './oidc.ts';
import { opsRoutes } from './ops.ts';
import { type ApiRoute, route } from './route.ts';
import { EVENT_SCHEMAS, webhookRoutes } from './webhooks.ts';

type Json = Record<string, unknown>;

const selfRoute = route({
  method: 'get',
  path: '/openapi.json',
  operationId: 'openapi',
  summary: 'This document',
  tag: 'Operations',
  responses: {
    200: {
      description: 'The OpenAPI 3.1 document.',
      schema: z.object({}).loose(),
      headers: ['Cache-Control'],
    },
  },
});

/** Every operation of the public API, in the order the document lists them. */
export const API_ROUTES: readonly ApiRoute[] = [
  ...oauthRoutes,
  ...oidcRoutes,
  ...documentRoutes,
  ...capabilityRoutes,
  ...webhookRoutes,
  ...applicationRoutes,
  ...opsRoutes,
  selfRoute,
];

const TAGS = [
  { name: 'OAuth', description: 'Authorization code flow with PKCE.' },
  { name: 'OpenID Connect', description: 'Discovery, signing keys and claims.' },
  { name: 'Identity documents', description: 'Documents the person shares with the application.' },
  { name: 'Capabilities', description: 'Public capability discovery; cache briefly.' },
  { name: 'Webhooks', description: 'Developer API for webhook endpoints (`Authorization: Bearer dk_…`).' },
  { name: 'Applications', description: 'Developer API for applications (`Authorization: Bearer dk_…`).' },
  { name: 'Operations', description: 'Health, readiness, metrics.' },
];

/**
 * Turns zod schemas into JSON Schema 2020-12 (the dialect of OpenAPI 3.1). A schema given an `id` with
 * `.meta()` becomes a named component: zod emits it under `$defs`, which is hoisted into
 * `components.schemas` and every `#/$defs/X` reference rewritten to point there.
 */
class SchemaSet {
  readonly components: Record<string, Json> = {};

  // The input side throughout: for a request it is what the server accepts; response schemas have no
  // transforms, and their input side leaves objects open (the output side would forbid additional
  // properties, which would break clients the day a field is added).
  convert(schema: z.core.$ZodType): Json {
    const out = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
    }) as Json;
    const { $schema: _, $defs, ...rest } = out;
    for (const [id, def] of Object.entries(($defs ?? {}) as Record<string, Json>)) {
      const json = relink(def);
      const known = this.components[id];
      if (known && JSON.stringify(known) !== JSON.stringify(json))
        throw new Error(`Two different schemas are named ${id}.`);
      this.components[id] = json;
    }
    return relink(rest);
  }
}

const relink = (json: Json): Json =>
  JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;

function parameters(set: SchemaSet, where: 'path' | 'query', shape: z.core.$ZodObject | undefined): Json[] {
  if (!shape) return [];
  const json = set.convert(shape);
  const props = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(props).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function operation(set: SchemaSet, r: ApiRoute): Json {
  const op: Json = {
    operationId: r.operationId,
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    tags: [r.tag],
  };
  const params = [...parameters(set, 'path', r.params), ...parameters(set, 'query', r.query)];
  if (params.length) op.parameters = params;
  if (r.body) {
    const schema = set.convert(r.body.schema);
    op.requestBody = {
      required: r.body.required ?? false,
      ...(r.body.description ? { description: r.body.description } : {}),
      content: Object.fromEntries(r.body.contentTypes.map((t) => [t, { schema }])),
    };
  }
  if (r.security) op.security = r.security;
  op.responses = Object.fromEntries(
    Object.entries(r.responses).map(([status, spec]) => {
      const res: Json = { description: spec.description };
      const headers = ['X-Request-Id', ...(spec.headers ?? [])];
      res.headers = Object.fromEntries(headers.map((h) => [h, { $ref: `#/components/headers/${h}` }]));
      if (spec.schema)
        res.content = { [spec.contentType ?? 'application/json']: { schema: set.convert(spec.schema) } };
      return [status, res];
    }),
  );
  return op;
}

/** The OpenAPI 3.1 document of the public API, for the configured base URL. */
export function openApiDocument(config: Config): Json {
  const set = new SchemaSet();
  const paths: Record<string, Record<string, Json>> = {};
  for (const r of API_ROUTES) {
    paths[r.path] ??= {};
    const item = paths[r.path]!;
    if (item[r.method]) throw new Error(`${r.method.toUpperCase()} ${r.path} is declared twice.`);
    item[r.method] = operation(set, r);
  }
  const webhooks = Object.fromEntries(
    Object.entries(EVENT_SCHEMAS).map(([type, schema]) => [
      type,
      {
        post: {
          operationId: `event_${type.replace(/\./g, '_')}`,
          summary: `${type} event`,
          description:
            'Sent to the registered HTTPS endpoint with `service-event-id`, `service-event-type` and `service-signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`. Answer 2xx once the event id is durably stored.',
          tags: ['Webhooks'],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: set.convert(schema) } },
          },
          responses: { '2XX': { description: 'Accepted; no more attempts.' } },
        },
      },
    ]),
  );
  const headers = Object.fromEntries(
    Object.entries(HEADERS).map(([name, h]) => [
      name,
      { description: h.description, schema: set.convert(h.schema) },
    ]),
  );
  return {
    openapi: '3.1.1',
    info: {
      title: 'Verity API',
      version: '1.0.0',
      description:
        'OAuth 2.0 authorization server and OpenID Connect identity provider with identity assurance. The identity experience and the developer portal are HTML surfaces and not part of this document.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: config.server.base_url }],
    tags: TAGS,
    paths,
    webhooks,
    components: {
      schemas: set.components,
      headers,
      securitySchemes: {
        clientSecretBasic: {
          type: 'http',
          scheme: 'basic',
          description:
            'Confidential clients at the token endpoint: Base64 of form-encoded(client_id) ":" form-encoded(client_secret). `client_secret` in the body is accepted too.',
        },
        accessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'opaque (at_…)',
          description:
            'The access token from the token endpoint; valid 15 minutes and only while the consent lasts.',
        },
        developerApiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'dk_test_… / dk_live_…',
          description: 'A developer API key, scoped to its owner’s applications and to one environment.',
        },
      },
    },
  };
}
