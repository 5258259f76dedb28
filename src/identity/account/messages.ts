/**
 * The account page's words, English first. Scope wording comes from the identity experience's main
 * catalogue (`messages/en.ts`), so a scope reads the same at consent and here. Another language is one
 * more object of this shape.
 */
export const accountEn = {
  title: 'Your account',
  signinTitle: 'Sign in to your account',
  signinIntro: 'Sign in to see the applications you share information with.',
  sandboxHeading: 'Sandbox personas',
  sandboxIntro: 'On this server you can also sign in as a built-in test persona.',
  signedInAs: (name: string) => `Signed in as ${name}`,
  signOut: 'Sign out',

  appsHeading: 'Connected applications',
  appsNone: 'You have not allowed any application to use your information.',
  sandboxApp: 'Sandbox',
  purpose: 'Purpose',
  noPurpose: 'No purpose given',
  canSee: 'It can see',
  given: 'Given',
  lastUsed: 'Last used',
  neverUsed: 'Not used yet',
  expires: 'Ends',
  revoke: 'Revoke',
  revokeLabel: (app: string, purpose: string) => `Revoke ${app}: ${purpose}`,
  disconnect: 'Disconnect',
  disconnectLabel: (app: string) => `Disconnect ${app}`,
  disconnectHelp: 'Disconnecting ends every consent you gave this application.',

  documentsHeading: 'Your identity documents',
  documentsNone: 'No identity documents are on your account.',
  documentsIntro:
    'Applications you allowed to see identity documents see only the documents you share. Switching sharing off hides a document from every application at once.',
  sharingOn: 'Shared with the applications you allowed to see documents',
  sharingOff: 'Not shared with any application',
  shareLabel: (doc: string) => `Share ${doc}`,
  expiresOn: (date: string) => `Expires ${date}`,
  validity: {
    valid: 'Valid',
    expired: 'Expired',
    revoked: 'Revoked',
    suspended: 'Suspended',
  } as Record<string, string>,

  notices: {
    revoked: 'Consent revoked. The application can no longer read your information.',
    disconnected: 'Application disconnected. It can no longer read your information.',
    sharing: 'Document sharing updated.',
  } as Record<string, string>,
  notFound: 'That consent, application or document is not on your account.',
};

export type AccountMessages = typeof accountEn;

const CATALOGUES: Record<string, AccountMessages> = { en: accountEn };

export function accountMessagesFor(lang = 'en'): AccountMessages {
  return CATALOGUES[lang] ?? accountEn;
}
