import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';

/** A posted form of the identity pages checked against its schema; anything else is a 400 naming no field. */
export async function readForm<T extends z.ZodType>(c: Context, schema: T): Promise<z.output<T>> {
  const parsed = schema.safeParse(await c.req.parseBody());
  if (!parsed.success) throw new ApiError('INVALID_REQUEST', 'The form was incomplete or malformed.', 400);
  return parsed.data;
}
