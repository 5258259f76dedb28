import { type SurfaceMount, surfacePaths } from '../config/surfaces.ts';

/** First path segments of the portal. Middleware is scoped to them: at the root of the base host the
 * portal is mounted at "/", beside the API, whose routes must not get sessions or HTML errors. */
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
 * The paths the portal answers where it is mounted (see `surfacePaths`). A module of its own: the app
 * decides with it, without loading the portal, which requests the portal answers
 * (docs/architecture.md#memory).
 */
export const portalPaths = (mount: SurfaceMount) =>
  surfacePaths(mount, (path) => path === '/' || SEGMENTS.has(path.split('/')[1] ?? ''));
