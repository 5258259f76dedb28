import { isScope, RESTRICTED_SCOPES, SCOPES, type Scope } from '../capabilities/scopes.ts';
import type { Environment } from '../environment.ts';
import { ruleViolation } from './rule-error.ts';

/** "openid  profile" or "openid,profile" → ["openid", "profile"]. */
export function parseScopeList(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

/**
 * The scope set an environment may enable: non-empty, only the interface's 26 scopes, and never
 * `document_number_full` in sandbox. In production `document_number_full` also needs the operator's
 * approval flag on the application. Returned deduplicated, in the interface's order.
 */
export function checkScopes(
  scopes: readonly string[],
  environment: Environment,
  opts: { fullNumberApproved?: boolean } = {},
): Scope[] {
  if (scopes.length === 0) throw ruleViolation('scopes', 'at least one scope is required');
  for (const s of scopes)
    if (!isScope(s))
      throw ruleViolation(
        'scopes',
        `unknown scope "${s}": scopes must be among the ${SCOPES.length} listed at /v1/capabilities/scopes`,
      );
  for (const s of RESTRICTED_SCOPES) {
    if (!scopes.includes(s)) continue;
    if (environment === 'sandbox')
      throw ruleViolation('scopes', `${s} is never granted in sandbox (production only, after review)`);
    if (!opts.fullNumberApproved)
      throw ruleViolation(
        'scopes',
        `${s} needs an approved production review that asked for it with a justification`,
      );
  }
  return SCOPES.filter((s) => scopes.includes(s));
}
