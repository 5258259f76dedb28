import type { Table } from 'drizzle-orm';

type Snake<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${Snake<Rest>}`
  : S;

type Raw<V> = V extends boolean ? number : V;

/**
 * A table's row as a prepared statement returns it: the drizzle schema's columns under their SQL
 * (snake_case) names, flags as the 0/1 integers SQLite stores. Stores that run SQL by hand type their
 * rows with this (or a Pick of it) rather than restating the columns.
 */
export type SqlRow<T extends Table> = {
  [K in keyof T['$inferSelect'] & string as Snake<K>]: Raw<T['$inferSelect'][K]>;
};
