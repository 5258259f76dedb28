import type { Environment } from '../environment.ts';

/** DESIGN.md §4: the environment is visible in every credential so leaks are recognisable. */
export const CLIENT_ID_PREFIX: Record<Environment, string> = {
  sandbox: 'cid_test_',
  production: 'cid_live_',
};
export const ACCESS_TOKEN_PREFIX = 'at_';
export const CLIENT_SECRET_PREFIX: Record<Environment, string> = {
  sandbox: 'cs_test_',
  production: 'cs_live_',
};
