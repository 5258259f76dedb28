import { integer } from 'drizzle-orm/sqlite-core';

/** Times are unix seconds everywhere. */
export const time = (name: string) => integer(name);
export const flag = (name: string) => integer(name, { mode: 'boolean' });
