import { type SurfaceMount, surfacePaths } from '../config/surfaces.ts';

/**
 * The paths the identity experience answers where it is mounted (see `surfacePaths`). A module of its
 * own: the app decides with it, without loading the identity experience, which requests it answers
 * (docs/architecture.md#memory).
 */
export const identityPaths = (mount: SurfaceMount) =>
  surfacePaths(mount, (path) => /^\/(authorize|account|logout)(\/|$)/.test(path));
