/** First path segments of the portal. Middleware is scoped to them: with its own host the portal is
 * mounted at "/", beside the API, whose routes must not get sessions or HTML errors. */
const PUBLIC = [
  'signin',
  'signup',
  'signout',
  'invitations',
  'verify-email',
  'forgot-password',
  'reset-password',
];
export const PRIVATE = ['apps', 'keys', 'account'];

const SEGMENTS = new Set([...PUBLIC, ...PRIVATE]);

/**
 * The paths of the portal's pages under its mount path `base`: with a path of its own, every path
 * under it (an unknown one gets the portal's 404 page); at the root of a host, its pages only. A module
 * of its own: the app decides with it, without loading the portal, which requests the portal answers
 * (docs/architecture.md#memory).
 */
export const portalPaths = (base: string) => (path: string) => {
  if (base !== '') return path === base || path.startsWith(`${base}/`);
  return path === '/' || SEGMENTS.has(path.split('/')[1] ?? '');
};
