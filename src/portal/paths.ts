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
 * The paths of the portal's pages, under its mount path `base`. A module of its own: the app decides
 * with it, without loading the portal, which requests the portal answers (docs/architecture.md#memory).
 */
export const portalPaths = (base: string) => (path: string) => {
  if (!path.startsWith(base)) return false;
  const rest = path.slice(base.length);
  return rest === '' || rest === '/' || SEGMENTS.has(rest.split('/')[1] ?? '');
};
