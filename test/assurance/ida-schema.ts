import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * The JSON Schemas published with OpenID Connect for Identity Assurance 1.0 (copies in
 * test/fixtures/oidc4ida/, source in its README), compiled with ajv: the response schema every
 * emitted `verified_claims` must satisfy, and the request schema of the `claims` parameter.
 */

const dir = join(import.meta.dir, '../fixtures/oidc4ida');
const read = (name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8'));
const BASE = 'https://bitbucket.org/openid/ekyc-ida/raw/master/schema/';

// strict: false — the published schemas use `if` without `then` in places ajv's strict mode flags.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
for (const name of ['claims_schema.json', 'verified_claims_request.json', 'verified_claims.json'])
  ajv.addSchema(read(name));

const responseSchema = ajv.getSchema(`${BASE}verified_claims.json`)!;
const requestSchema = ajv.getSchema(`${BASE}verified_claims_request.json`)!;

/** Problems of an object holding `verified_claims` (an ID token payload, a UserInfo response); [] if valid. */
export function verifiedClaimsProblems(holder: Record<string, unknown>): string[] {
  if (responseSchema(holder)) return [];
  return (responseSchema.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** Whether a claims request satisfies the published request schema. */
export const validClaimsRequest = (request: unknown): boolean => requestSchema(request) === true;

/** The request examples of the specification, by file name without `.json`. */
export const SPEC_EXAMPLES: Record<string, unknown> = Object.fromEntries(
  readdirSync(join(dir, 'examples')).map((f) => [f.replace(/\.json$/, ''), read(`examples/${f}`)]),
);
