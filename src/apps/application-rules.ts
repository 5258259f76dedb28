import { isSigningAlg, SIGNING_ALGS, type SigningAlg } from '../keys/signing-algs.ts';
import { ASSURANCE_LEVELS, type AssuranceLevel, isAssuranceLevel } from '../persons/assurance.ts';
import type { ApplicationType, PkceMode } from './application.store.ts';
import { redirectUriProblem } from './redirect-uri-rules.ts';
import { ruleViolation } from './rule-error.ts';

export const APPLICATION_TYPES: readonly ApplicationType[] = ['confidential', 'public'];
export const PKCE_MODES: readonly PkceMode[] = ['required', 'public-only'];
export const MAX_NAME_LENGTH = 100;

export function checkName(name: string): string {
  const n = name.trim();
  if (n === '') throw ruleViolation('name', 'the application name must not be empty');
  if (n.length > MAX_NAME_LENGTH)
    throw ruleViolation('name', `the application name must be at most ${MAX_NAME_LENGTH} characters long`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(n))
    throw ruleViolation('name', 'the application name must not contain control characters');
  return n;
}

export function checkType(type: string): ApplicationType {
  if (!(APPLICATION_TYPES as readonly string[]).includes(type))
    throw ruleViolation('type', `the application type must be "confidential" or "public", not "${type}"`);
  return type as ApplicationType;
}

export function checkPkce(mode: string): PkceMode {
  if (!(PKCE_MODES as readonly string[]).includes(mode))
    throw ruleViolation('pkce', `the PKCE mode must be "required" or "public-only", not "${mode}"`);
  return mode as PkceMode;
}

/** The lowest assurance level (acr) an environment's authorizations must reach. */
export function checkMinimumAcr(level: string): AssuranceLevel {
  if (!isAssuranceLevel(level))
    throw ruleViolation(
      'minimumAcr',
      `the minimum acr must be one of ${ASSURANCE_LEVELS.join(', ')}, not "${level}"`,
    );
  return level;
}

/** How an environment's ID tokens are signed: its relying party must accept the algorithm it chose. */
export function checkIdTokenAlg(alg: string): SigningAlg {
  if (!isSigningAlg(alg))
    throw ruleViolation(
      'idTokenSignedResponseAlg',
      `the ID token signing algorithm must be one of ${SIGNING_ALGS.join(', ')}, not "${alg}"`,
    );
  return alg;
}

/** Plans name rate-limit tiers of the config (`[rate_limits.<surface>.plans.<plan>]`). */
export function checkPlan(plan: string): string {
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(plan))
    throw ruleViolation('plan', `the plan "${plan}" must be 1-40 lower-case letters, digits, "-" or "_"`);
  return plan;
}

/**
 * A privacy policy or terms of service link (RFC 7591 `policy_uri`, `tos_uri`), shown to persons on the
 * consent page: an absolute https URL, spelt as plainly as a redirect URI. Empty clears it (null).
 */
export function checkLink(path: 'policyUri' | 'tosUri', value: string): string | null {
  const v = value.trim();
  if (v === '') return null;
  const label = path === 'policyUri' ? 'privacy policy link' : 'terms of service link';
  const problem = redirectUriProblem(v) ?? (v.startsWith('https://') ? undefined : 'must use https');
  if (problem) throw ruleViolation(path, `${label} "${v}": ${problem}`, problem);
  return v;
}
