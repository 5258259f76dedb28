/** Unix seconds as ISO 8601 UTC, the form every command prints times in; null stays null. */
export function iso(seconds: number): string;
export function iso(seconds: number | null): string | null;
export function iso(seconds: number | null): string | null {
  return seconds === null ? null : new Date(seconds * 1000).toISOString();
}
