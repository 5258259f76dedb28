/** A browser's cookie jar, by name: what a response's Set-Cookie headers leave in it. */
export type CookieJar = Map<string, string>;

/** Stores each cookie set, and drops each one cleared (empty, or `Max-Age=0`). */
export function storeCookies(jar: CookieJar, setCookies: string[]): void {
  for (const sc of setCookies) {
    const [pair] = sc.split(';');
    const i = pair!.indexOf('=');
    const name = pair!.slice(0, i);
    const value = pair!.slice(i + 1);
    if (/max-age=0/i.test(sc) || value === '') jar.delete(name);
    else jar.set(name, value);
  }
}

/** The Cookie header a browser sends with this jar. */
export const cookieHeader = (jar: CookieJar): string => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
