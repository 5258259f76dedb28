/** The one client registered with node-oidc-provider in the benchmark (server.ts). */
export const CLIENT = {
  client_id: 'bench',
  client_secret: 'bench-secret-0123456789abcdefghijklmnopqrstuvwxyz',
  redirect_uri: 'https://bench.example/callback',
};
export const SCOPE = 'openid email';
