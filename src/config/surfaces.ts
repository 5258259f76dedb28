import { API_SEGMENTS, type Config } from './schema.ts';

/** Where a surface (the identity experience, the portal) is mounted. */
export interface SurfaceMount {
  /** Its path prefix ("http://h/identity" → "/identity", "https://id.example" → ""). */
  path: string;
  /** Whether its host differs from `base_url`'s (docs/reference.md, "Surface hosts"). */
  ownHost: boolean;
}

export const surfacePath = (url: string) => new URL(url).pathname.replace(/\/+$/, '');

export const surfaceMount = (server: Config['server'], url: string): SurfaceMount => ({
  path: surfacePath(url),
  ownHost: new URL(url).host !== new URL(server.base_url).host,
});

/**
 * Whether `path` is the surface's. With a path of its own, every path under it (an unknown one gets the
 * surface's 404 page); at the root of a host of its own, every path but the API's and the probes';
 * at the root of the base host, beside the API, `isPage`'s only.
 */
export const surfacePaths =
  ({ path: base, ownHost }: SurfaceMount, isPage: (path: string) => boolean) =>
  (path: string) => {
    if (base !== '') return path === base || path.startsWith(`${base}/`);
    if (ownHost) return !API_SEGMENTS.includes(path.split('/')[1] ?? '');
    return isPage(path);
  };
