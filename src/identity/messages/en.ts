/** English catalogue. Another language is one more file of the same shape (see `index.ts`). */
export const en = {
  lang: 'en',
  productName: 'Verity',
  skipToContent: 'Skip to content',
  sandboxBadge: 'Sandbox',
  continue: 'Continue',

  errorTitle: 'Something went wrong',
  errorRequestId: 'Request ID',
  errorBackToApp: 'Return to the application and start again.',
  errorUnknownRequest:
    'This sign-in request is unknown, has expired or is already finished. Return to the application and start again.',
  errorOtherSession:
    'This sign-in request was started in another browser session. For your safety it cannot continue here. Return to the application and start again.',
  errorInternal: 'An unexpected error occurred. Please try again later.',
  errorBusy: (seconds: number) =>
    `The server is busy. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`,
  errorSandboxDisabled: 'Sandbox sign-in is turned off on this server.',

  logoutTitle: 'Sign out',
  logoutAsk: (app: string | undefined) =>
    app ? `${app} asks to sign you out of Verity.` : 'Do you want to sign out of Verity?',
  logoutSignedInAs: (name: string) => `You are signed in as ${name}.`,
  logoutConfirm: 'Sign out',
  logoutStay: 'Stay signed in',
  signedOutTitle: 'Signed out',
  signedOut: 'You are signed out of Verity. You can close this window.',

  signinTitle: 'Sign in',
  signinTo: (app: string) => `to continue to ${app}`,
  email: 'Email',
  password: 'Password',
  signIn: 'Sign in',
  signinFailed: 'The email or password is not correct.',
  signinThrottled: 'Too many sign-in attempts. Wait a few minutes and try again.',

  personaTitle: 'Choose a test persona',
  personaIntro:
    'This is a sandbox application: no real accounts are used. Pick a persona to sign in as. Each has fixed, fictional identity data.',
  forcedOutcome: 'Forced outcome',
  forcedOutcomeHelp: 'Makes the flow end a certain way, whatever you choose later.',
  outcomeNone: 'None: decide at each step',
  outcomeDeny: 'The person denies access',
  outcomeFailLiveness: 'Face assurance fails: liveness',
  outcomeFailMatch: 'Face assurance fails: face match',

  faceTitle: 'Face check',
  faceIntroSandbox:
    'In the sandbox the face check is scripted. Choose its result. Eve Sandbox always fails the face match and Finn Sandbox always fails liveness.',
  passFace: 'Pass face check',
  failLiveness: 'Fail liveness',
  failMatch: 'Fail face match',
  faceIntro:
    'We need to confirm it is really you. Allow the camera, look at the screen and select Start face check. Images are used only for this check and are not stored.',
  faceStart: 'Start face check',
  faceCameraLabel: 'Camera preview',
  faceCapturing: 'Hold still…',
  faceCameraError: 'The camera could not be started. Check the browser permission and try again.',
  faceNoScript: 'The face check needs JavaScript and a camera.',
  faceUnavailableTitle: 'Face assurance is not available',
  faceUnavailable:
    'This server is not configured for face assurance, so the sign-in cannot be completed. Select Continue to return to the application.',

  consentTitle: 'Share your information',
  consentWants: (app: string) => `${app} wants to use your information`,
  consentPurpose: 'Purpose',
  consentNoPurpose: 'The application gave no purpose.',
  consentScopes: 'It will be able to see',
  consentSignedInAs: (name: string) => `Signed in as ${name}`,
  consentFooter: 'You can withdraw this consent at any time from your account page.',
  allow: 'Allow',
  deny: 'Deny',

  // Reasons sent back to the application (error_description).
  descDenied: 'The person denied the request.',
  descFailLiveness: 'Face assurance failed: the liveness check did not pass.',
  descFailMatch: 'Face assurance failed: the face did not match the account.',
  descFaceUnavailable: 'Face assurance is not configured on this server.',
  descNoTemplate: 'Face assurance failed: the account has no enrolled face template.',
  descFaceProvider: (detail: string) => `Face assurance could not be completed: ${detail}`,
  descFaceNoFrames: 'Face assurance failed: no camera images were received.',
  descLoginRequired: 'The person is not signed in and prompt=none was requested.',
  descConsentRequired: 'Consent for this purpose and these scopes has not been given.',
  descInteractionRequired: 'Face assurance requires the person to take part in every authorization.',
  descAccountDisabled: 'The account is disabled.',

  /** Each scope in plain words, shown at consent. */
  scopes: {
    openid: 'A private identifier for you at this application',
    profile: 'Your name, username and language',
    email: 'Your main email address',
    emails: 'All your email addresses',
    phone: 'Your main phone number',
    phones: 'All your phone numbers',
    legal_name: 'Your legal name as on your identity document',
    age: 'Your age in years',
    age_over_18: 'Whether you are over 18',
    date_of_birth: 'Your date of birth',
    nationality: 'Your nationalities',
    identity_verified: 'Whether your identity has been verified',
    identity_assurance_level: 'How strongly your identity has been verified',
    liveness_verified: 'Whether this sign-in passed a liveness check',
    face_match_verified: 'Whether your face matched your account in this sign-in',
    profile_photo: 'Your photo',
    profile_photo_verified: 'Whether your photo has been verified',
    identity_documents: 'The identity documents you choose to share',
    document_type: 'The type of each shared document',
    document_issuing_country: 'The country that issued each shared document',
    document_expiry_date: 'The expiry date of each shared document',
    document_validity: 'Whether each shared document is valid',
    document_verified: 'Whether each shared document has been verified',
    document_verified_at: 'When each shared document was verified',
    document_number_masked: 'A partly hidden number of each shared document',
    document_number_full: 'The full number of each shared document',
  } as Record<string, string>,
};

export type Messages = typeof en;
