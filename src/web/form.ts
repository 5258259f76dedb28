import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';

/** A posted urlencoded or multipart body as fields; a key sent more than once is an array of its values. */
export type FormFields = Record<string, string | File | (string | File)[]>;

export const formFields = (c: Context): Promise<FormFields> => c.req.parseBody({ all: true });

/**
 * A posted form of the identity or portal pages checked against its schema. A malformed form (not a rule
 * broken by a value, which the domain reports per field) is a 400 naming no field.
 */
export async function readForm<T extends z.ZodType>(c: Context, schema: T): Promise<z.output<T>> {
  const parsed = schema.safeParse(await formFields(c));
  if (!parsed.success) throw new ApiError('INVALID_REQUEST', 'The form was incomplete or malformed.', 400);
  return parsed.data;
}

/** A field that may come once or several times (checkbox groups), as an array of its text values. */
export const many = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === 'string');
