import type { AppContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { unix } from '../platform/clock.ts';
import { clientRegistry, type OAuthClient } from './client.store.ts';

/** RFC 6749 §5.2: 401 with a challenge naming the scheme the client should use. */
export const invalidClient = (description = 'Client authentication failed.') =>
  new OAuthError('invalid_client', description, 401, { 'WWW-Authenticate': 'Basic realm="verity"' });

export interface ClientCredentials {
  clientId: string;
  secret?: string;
  method: 'client_secret_basic' | 'client_secret_post' | 'none';
}

/** RFC 6749 §2.3.1: id and secret are each form-encoded before being joined with ':'. */
function formDecode(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, ' '));
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

function decodeBasic(header: string): { id: string; secret: string } {
  const m = /^basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header);
  if (!m) throw invalidClient('The Authorization header is not valid HTTP Basic.');
  try {
    const binary = atob(m[1]!);
    // Client ids and secrets are ASCII; anything else is decoded as strict UTF-8.
    const text = /[\u0080-\u00ff]/.test(binary)
      ? utf8Decoder.decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)))
      : binary;
    const colon = text.indexOf(':');
    if (colon < 0) throw new Error('no separator');
    return { id: formDecode(text.slice(0, colon)), secret: formDecode(text.slice(colon + 1)) };
  } catch {
    throw invalidClient('The Authorization header is not valid HTTP Basic.');
  }
}

/** Which credentials the request presents; using two methods at once is refused. */
export function readClientCredentials(
  authorization: string | undefined,
  body: Record<string, string>,
): ClientCredentials {
  if (authorization !== undefined) {
    if (body.client_secret !== undefined)
      throw new OAuthError('invalid_request', 'Use one client authentication method, not two.');
    const { id, secret } = decodeBasic(authorization);
    if (body.client_id !== undefined && body.client_id !== id)
      throw new OAuthError('invalid_request', 'client_id in the body differs from the authenticated client.');
    return { clientId: id, secret, method: 'client_secret_basic' };
  }
  if (!body.client_id) throw invalidClient('The client_id is missing.');
  if (body.client_secret !== undefined)
    return { clientId: body.client_id, secret: body.client_secret, method: 'client_secret_post' };
  return { clientId: body.client_id, method: 'none' };
}

/**
 * Confidential clients must present a current secret of their own environment; public clients must
 * present none (they prove possession of the code with PKCE). Unknown clients and secrets of the
 * other environment fail the same way.
 */
export function authenticateClient(
  ctx: AppContext,
  creds: ClientCredentials,
  clients = clientRegistry(ctx),
  client = clients.client(creds.clientId),
): OAuthClient {
  if (!client) throw invalidClient();
  if (client.type === 'public') {
    if (creds.method !== 'none') throw invalidClient('Public clients do not authenticate with a secret.');
    return client;
  }
  if (creds.secret === undefined) throw invalidClient('Confidential clients must authenticate.');
  if (!clients.secretMatches(client, creds.secret, unix(ctx.clock))) throw invalidClient();
  return client;
}
