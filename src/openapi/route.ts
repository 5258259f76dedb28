import type { z } from 'zod';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Names of the security schemes declared in the document's components. */
export type SecurityScheme = 'clientSecretBasic' | 'accessToken' | 'developerApiKey';

export interface ResponseSpec {
  description: string;
  /** The body's schema; absent for bodiless responses (redirects, 204). */
  schema?: z.core.$ZodType;
  /** Default `application/json`. */
  contentType?: string;
  /** Names of headers declared in `components.headers`. */
  headers?: string[];
}

/**
 * One operation of the public API, declared once with the zod schemas its router validates with (where
 * the router validates with zod) and the schemas of what it answers.
 */
export interface ApiRoute {
  method: Method;
  /** OpenAPI path syntax: `/v1/capabilities/countries/{countryCode}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Alternatives, any one of which suffices; an empty object in the list means "no credentials". */
  security?: Partial<Record<SecurityScheme, string[]>>[];
  params?: z.core.$ZodObject;
  query?: z.core.$ZodObject;
  body?: { schema: z.core.$ZodType; contentTypes: string[]; required?: boolean; description?: string };
  responses: Record<number, ResponseSpec>;
}

export const route = (r: ApiRoute): ApiRoute => r;
