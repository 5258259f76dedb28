import type { Environment } from '../environment.ts';
import type { ConsentHolder } from './consent.store.ts';
import type { ConsentRecord } from './lifecycle.store.ts';

/**
 * Who holds the consents a signed-in person gives and sees. A production person holds all of theirs.
 * A sandbox persona is shared by every developer on the server, so its consents are held by the
 * identity session that granted them as well: only that browser session sees, reuses or revokes them
 * (the application's developer revokes them in the portal). Fails closed without a session.
 */
export function consentHolder(
  person: { id: string; environment: Environment },
  sessionIdHash: string | undefined,
): ConsentHolder {
  if (person.environment === 'production') return { personId: person.id, sessionIdHash: null };
  if (!sessionIdHash) throw new Error('a sandbox consent is held by an identity session');
  return { personId: person.id, sessionIdHash };
}

export const heldBy =
  (h: ConsentHolder) =>
  (c: ConsentRecord): boolean =>
    c.personId === h.personId && c.sessionIdHash === h.sessionIdHash;
