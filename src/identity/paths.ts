/**
 * The paths the identity experience answers under its mount path `base`: its pages and, when it has a
 * path of its own, that address (which leads to the account page). A module of its own: the app
 * decides with it, without loading the identity experience, which requests it answers
 * (docs/architecture.md#memory).
 */
export const identityPaths = (base: string) => (path: string) => {
  if (!path.startsWith(base)) return false;
  const rest = path.slice(base.length);
  return (base !== '' && (rest === '' || rest === '/')) || /^\/(authorize|account|logout)(\/|$)/.test(rest);
};
