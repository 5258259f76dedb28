import { describe, expect, test } from 'bun:test';
import { Hono } from 'hono';
import { z } from 'zod';
import { ApiError } from '../../src/errors.ts';
import { many, readForm } from '../../src/web/form.ts';

// The one reader behind every identity and portal form: urlencoded and multipart alike, a repeated key
// kept as all its values, anything the schema refuses a 400 that names no field.
const schema = z.object({ name: z.string(), events: z.unknown().transform(many) });
const app = new Hono()
  .post('/', async (c) => c.json(await readForm(c, schema)))
  .onError((err, c) => c.json({ code: err instanceof ApiError ? err.code : 'INTERNAL' }, 400));

const post = (body: URLSearchParams | FormData) => app.request('/', { method: 'POST', body });

describe('readForm', () => {
  test('a urlencoded body keeps every value of a repeated key', async () => {
    const res = await post(
      new URLSearchParams([
        ['name', 'a'],
        ['events', 'x'],
        ['events', 'y'],
      ]),
    );
    expect(await res.json()).toEqual({ name: 'a', events: ['x', 'y'] });
  });

  test('a multipart body reads the same way; a key sent once is still a list where the form expects one', async () => {
    const form = new FormData();
    form.append('name', 'a');
    form.append('events', 'x');
    const res = await post(form);
    expect(await res.json()).toEqual({ name: 'a', events: ['x'] });
  });

  test('a single-value field sent twice is refused, not silently narrowed to one of its values', async () => {
    const res = await post(
      new URLSearchParams([
        ['name', 'a'],
        ['name', 'b'],
      ]),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'INVALID_REQUEST' });
  });
});
