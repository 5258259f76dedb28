/**
 * The callback URL with extra query parameters appended. A registered URI may carry its own query;
 * it is kept, and ours are added after it (RFC 6749 §3.1.2).
 */
export function callbackUrl(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  return url.toString();
}
