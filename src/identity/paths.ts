/**
 * The paths the identity experience answers under its mount path `base`: with a path of its own,
 * every path under it (an unknown one gets the surface's 404 page); at the root of a host, its pages
 * only. A module of its own: the app decides with it, without loading the identity experience, which
 * requests it answers (docs/architecture.md#memory).
 */
export const identityPaths = (base: string) => (path: string) => {
  if (base !== '') return path === base || path.startsWith(`${base}/`);
  return /^\/(authorize|account|logout)(\/|$)/.test(path);
};
