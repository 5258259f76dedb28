import type { EnvironmentView } from './application.store.ts';

/** An environment's client settings as the CLI's and the developer API's JSON show them. */
export const environmentSettings = (e: EnvironmentView) => ({
  environment: e.environment,
  clientId: e.clientId,
  scopes: e.scopes,
  redirectUris: e.redirectUris,
  webOrigins: e.webOrigins,
  postLogoutRedirectUris: e.postLogoutRedirectUris,
  documentTypes: e.documentTypes,
  documentCountries: e.documentCountries,
  minimumAcr: e.minimumAcr,
  idTokenSignedResponseAlg: e.idTokenSignedResponseAlg,
});
