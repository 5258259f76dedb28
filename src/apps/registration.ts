import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import { RESTRICTED_SCOPES } from '../capabilities/scopes.ts';
import { randomId } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import { findDeveloper } from '../developer/developer.store.ts';
import type { Environment } from '../environment.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { type Clock, unix } from '../platform/clock.ts';
import {
  type ApplicationInsert,
  type ApplicationView,
  deleteApplicationRow,
  type EnvironmentInsert,
  type EnvironmentView,
  findEnvironment,
  getApplication,
  insertApplication,
  insertEnvironment,
  newClientSecret,
  replacePostLogoutRedirectUris,
  replaceRedirectUris,
  replaceWebOrigins,
  setApplicationFields,
  setEnvironmentFields,
} from './application.store.ts';
import {
  checkIdTokenAlg,
  checkLink,
  checkMinimumAcr,
  checkName,
  checkPkce,
  checkPlan,
  checkType,
} from './application-rules.ts';
import {
  ALL_COUNTRIES,
  checkDocumentCountries,
  checkDocumentTypes,
  DOCUMENT_TYPES,
} from './document-policy-rules.ts';
import {
  fileProductionChange,
  type ProductionSettings,
  splitProductionEdit,
  withdrawPendingReview,
} from './production-change.ts';
import { checkPostLogoutRedirectUris, checkRedirectUris } from './redirect-uri-rules.ts';
import { ruleViolation } from './rule-error.ts';
import { checkScopes } from './scope-rules.ts';
import { checkWebOrigins } from './web-origin-rules.ts';

const FULL_NUMBER = RESTRICTED_SCOPES[0]!;

export interface CreateApplicationInput {
  name: string;
  type: string;
  redirectUris: readonly string[];
  /** Where RP-initiated logout may return to; default none. */
  postLogoutRedirectUris?: readonly string[];
  scopes: readonly string[];
  /** Origins of browser pages that may call the token, UserInfo and documents endpoints. */
  webOrigins?: readonly string[];
  /** Privacy policy and terms links shown on the consent page (https; empty: none). */
  policyUri?: string;
  tosUri?: string;
  ownerDeveloperId?: string;
  /** Default: every document type. */
  documentTypes?: string | readonly string[];
  /** Default: every country. */
  documentCountries?: string | readonly string[];
  /** Default: none. */
  minimumAcr?: string;
  /** Default: RS256. */
  idTokenSignedResponseAlg?: string;
  pkce?: string;
  plan?: string;
  actor: AuditActor;
}

export interface IssuedCredentials {
  applicationId: string;
  environment: Environment;
  clientId: string;
  /** Confidential clients only; shown once, stored as SHA-256. */
  clientSecret?: string;
}

function checkOwner(db: Db, developerId: string): void {
  if (!findDeveloper(db, developerId))
    throw ruleViolation('ownerDeveloperId', `developer ${developerId} not found`);
}

/**
 * Registers an application with its sandbox environment. Every registration rule is checked before
 * anything is written; production exists only after an approved review.
 */
export async function createApplication(
  db: Db,
  clock: Clock,
  input: CreateApplicationInput,
): Promise<IssuedCredentials> {
  const name = checkName(input.name);
  const type = checkType(input.type);
  const uris = checkRedirectUris(input.redirectUris);
  const postLogoutUris = checkPostLogoutRedirectUris(input.postLogoutRedirectUris ?? []);
  const scopes = checkScopes(input.scopes, 'sandbox');
  const webOrigins = checkWebOrigins(input.webOrigins ?? [], 'sandbox');
  const policyUri = checkLink('policyUri', input.policyUri ?? '');
  const tosUri = checkLink('tosUri', input.tosUri ?? '');
  const documentTypes =
    input.documentTypes === undefined ? [...DOCUMENT_TYPES] : checkDocumentTypes(input.documentTypes);
  const documentCountries =
    input.documentCountries === undefined
      ? [...ALL_COUNTRIES]
      : checkDocumentCountries(input.documentCountries);
  const minimumAcr = input.minimumAcr === undefined ? undefined : checkMinimumAcr(input.minimumAcr);
  const idTokenSignedResponseAlg =
    input.idTokenSignedResponseAlg === undefined
      ? undefined
      : checkIdTokenAlg(input.idTokenSignedResponseAlg);
  const pkce = checkPkce(input.pkce ?? 'required');
  const plan = checkPlan(input.plan ?? 'default');
  const credential = type === 'confidential' ? await newClientSecret('sandbox') : undefined;

  return db.sql.transaction(() => {
    if (input.ownerDeveloperId) checkOwner(db, input.ownerDeveloperId);
    const applicationId = randomId('app_');
    const t = unix(clock);
    insertApplication(db, {
      id: applicationId,
      name,
      type,
      ownerDeveloperId: input.ownerDeveloperId ?? null,
      pkce,
      plan,
      policyUri,
      tosUri,
      createdAt: t,
      updatedAt: t,
    });
    const env = insertEnvironment(db, clock, {
      applicationId,
      environment: 'sandbox',
      scopes,
      redirectUris: uris,
      webOrigins,
      postLogoutRedirectUris: postLogoutUris,
      documentTypes,
      documentCountries,
      minimumAcr,
      idTokenSignedResponseAlg,
      secretHash: credential?.hash,
    });
    recordAudit(db, clock, {
      actor: input.actor,
      action: 'application.create',
      target: applicationId,
      details: {
        name,
        type,
        environment: 'sandbox',
        clientId: env.clientId,
        scopes,
        redirectUris: uris,
        ...(webOrigins.length ? { webOrigins } : {}),
        ...(postLogoutUris.length ? { postLogoutRedirectUris: postLogoutUris } : {}),
      },
    });
    return {
      applicationId,
      environment: 'sandbox' as const,
      clientId: env.clientId,
      ...(credential ? { clientSecret: credential.secret } : {}),
    };
  });
}

export interface UpdateApplicationInput {
  name?: string;
  pkce?: string;
  plan?: string;
  /** null removes the owner. */
  ownerDeveloperId?: string | null;
  /** Consent page links; '' removes one. Not a widening: applies at once, in production too. */
  policyUri?: string;
  tosUri?: string;
  /** Which environment the fields below change (default sandbox). */
  environment?: Environment;
  /** Replaces the whole set. */
  redirectUris?: readonly string[];
  addRedirectUris?: readonly string[];
  removeRedirectUris?: readonly string[];
  /** Replaces the whole set (may be empty). */
  webOrigins?: readonly string[];
  addWebOrigins?: readonly string[];
  removeWebOrigins?: readonly string[];
  /** The same three for the post-logout redirect URIs. */
  postLogoutRedirectUris?: readonly string[];
  addPostLogoutRedirectUris?: readonly string[];
  removePostLogoutRedirectUris?: readonly string[];
  scopes?: readonly string[];
  documentTypes?: string | readonly string[];
  documentCountries?: string | readonly string[];
  /** Applies at once in either direction: it decides only how sure the application is of its users. */
  minimumAcr?: string;
  /**
   * Applies at once in either direction, production included: it changes how tokens are signed, not
   * what they release.
   */
  idTokenSignedResponseAlg?: string;
  /** For a developer's production edit that needs review: why (optional), and for document_number_full. */
  justification?: string;
  fullNumberJustification?: string;
  actor: AuditActor;
}

interface SetEdit {
  set?: readonly string[];
  add?: readonly string[];
  remove?: readonly string[];
}

const editsSet = (e: SetEdit) => e.set !== undefined || !!e.add?.length || !!e.remove?.length;

/** A URI list after an update's replacement, removals and additions; undefined when it asks none. */
function editedSet(
  view: EnvironmentView,
  key: 'redirectUris' | 'postLogoutRedirectUris',
  label: string,
  edit: SetEdit,
): string[] | undefined {
  if (!editsSet(edit)) return undefined;
  let uris = [...(edit.set ?? view[key])];
  for (const u of edit.remove ?? []) {
    if (!uris.includes(u))
      throw ruleViolation(key, `${label} "${u}" is not registered for ${view.environment}`);
    uris = uris.filter((x) => x !== u);
  }
  uris.push(...(edit.add ?? []));
  return uris;
}

/** The environment settings an update asks for, each checked against its rule; unset ones absent. */
function desiredSettings(
  view: EnvironmentView,
  input: UpdateApplicationInput,
  opts: { fullNumberApproved: boolean },
): Partial<ProductionSettings> {
  const out: Partial<ProductionSettings> = {};
  if (input.webOrigins !== undefined || input.addWebOrigins?.length || input.removeWebOrigins?.length) {
    let origins = checkWebOrigins(input.webOrigins ?? view.webOrigins, view.environment);
    // Compared normalised, so "https://App.example:443" removes "https://app.example".
    for (const o of checkWebOrigins(input.removeWebOrigins ?? [], 'sandbox')) {
      if (!origins.includes(o))
        throw ruleViolation('webOrigins', `web origin "${o}" is not registered for ${view.environment}`);
      origins = origins.filter((x) => x !== o);
    }
    out.webOrigins = checkWebOrigins([...origins, ...(input.addWebOrigins ?? [])], view.environment);
  }
  const redirect = editedSet(view, 'redirectUris', 'redirect URI', {
    set: input.redirectUris,
    add: input.addRedirectUris,
    remove: input.removeRedirectUris,
  });
  if (redirect) out.redirectUris = checkRedirectUris(redirect);
  const postLogout = editedSet(view, 'postLogoutRedirectUris', 'post-logout redirect URI', {
    set: input.postLogoutRedirectUris,
    add: input.addPostLogoutRedirectUris,
    remove: input.removePostLogoutRedirectUris,
  });
  if (postLogout) out.postLogoutRedirectUris = checkPostLogoutRedirectUris(postLogout);
  if (input.scopes !== undefined) out.scopes = checkScopes(input.scopes, view.environment, opts);
  if (input.documentTypes !== undefined) out.documentTypes = checkDocumentTypes(input.documentTypes);
  if (input.documentCountries !== undefined)
    out.documentCountries = checkDocumentCountries(input.documentCountries);
  return out;
}

/** Changes an application; every rule is checked on the result, so an update cannot break one. */
export function updateApplication(
  db: Db,
  clock: Clock,
  applicationId: string,
  input: UpdateApplicationInput,
): ApplicationView & { pendingReviewId?: string } {
  const environment = input.environment ?? 'sandbox';
  return db.sql.transaction(() => {
    const app = getApplication(db, applicationId);
    const changed: Record<string, unknown> = {};
    const appSet: Partial<ApplicationInsert> = {};
    if (input.name !== undefined) appSet.name = changed.name = checkName(input.name);
    if (input.pkce !== undefined) appSet.pkce = changed.pkce = checkPkce(input.pkce);
    if (input.plan !== undefined) appSet.plan = changed.plan = checkPlan(input.plan);
    for (const key of ['policyUri', 'tosUri'] as const) {
      const value = input[key];
      if (value === undefined) continue;
      const link = checkLink(key, value);
      if (link !== app[key]) appSet[key] = changed[key] = link;
    }
    if (input.ownerDeveloperId !== undefined) {
      if (input.ownerDeveloperId !== null) checkOwner(db, input.ownerDeveloperId);
      appSet.ownerDeveloperId = changed.ownerDeveloperId = input.ownerDeveloperId;
    }

    const touchesEnvironment =
      editsSet({ set: input.redirectUris, add: input.addRedirectUris, remove: input.removeRedirectUris }) ||
      editsSet({ set: input.webOrigins, add: input.addWebOrigins, remove: input.removeWebOrigins }) ||
      editsSet({
        set: input.postLogoutRedirectUris,
        add: input.addPostLogoutRedirectUris,
        remove: input.removePostLogoutRedirectUris,
      }) ||
      input.scopes !== undefined ||
      input.documentTypes !== undefined ||
      input.documentCountries !== undefined ||
      input.minimumAcr !== undefined ||
      input.idTokenSignedResponseAlg !== undefined;
    let pendingReviewId: string | undefined;
    if (touchesEnvironment) {
      const env = findEnvironment(db, applicationId, environment);
      const view = app.environments.find((e) => e.environment === environment);
      if (!env || !view)
        throw new ValidationError(
          `application ${applicationId} has no ${environment} environment: it exists only after "apps review approve"`,
        );
      // A developer may narrow production at once; anything wider waits for an operator's review.
      const reviewed = environment === 'production' && input.actor.startsWith('developer:');
      const desired = desiredSettings(view, input, {
        fullNumberApproved: reviewed || app.fullNumberApproved,
      });
      let apply = desired;
      if (reviewed) {
        const split = splitProductionEdit(view, desired);
        apply = split.now;
        pendingReviewId = fileProductionChange(db, clock, {
          applicationId,
          // What production is once the narrowing applies: approving the review must not undo it.
          production: { ...view, ...split.now },
          review: split.review,
          justification: input.justification,
          fullNumberJustification: input.fullNumberJustification,
          actor: input.actor,
        });
        if (pendingReviewId) changed.pendingReviewId = pendingReviewId;
      }
      const envSet: Partial<EnvironmentInsert> = {};
      if (apply.redirectUris) {
        replaceRedirectUris(db, env.id, apply.redirectUris);
        changed.redirectUris = apply.redirectUris;
      }
      if (apply.webOrigins) {
        replaceWebOrigins(db, env.id, apply.webOrigins);
        changed.webOrigins = apply.webOrigins;
      }
      if (apply.postLogoutRedirectUris) {
        replacePostLogoutRedirectUris(db, env.id, apply.postLogoutRedirectUris);
        changed.postLogoutRedirectUris = apply.postLogoutRedirectUris;
      }
      if (apply.scopes) {
        changed.scopes = apply.scopes;
        envSet.scopes = JSON.stringify(apply.scopes);
        // The approval flag follows production's scopes: dropping the scope withdraws it.
        if (environment === 'production' && !apply.scopes.includes(FULL_NUMBER) && app.fullNumberApproved)
          appSet.fullNumberApproved = changed.fullNumberApproved = false;
      }
      if (apply.documentTypes) {
        changed.documentTypes = apply.documentTypes;
        envSet.documentTypes = JSON.stringify(apply.documentTypes);
      }
      if (apply.documentCountries) {
        changed.documentCountries = apply.documentCountries;
        envSet.documentCountries = JSON.stringify(apply.documentCountries);
      }
      if (input.minimumAcr !== undefined) {
        const level = checkMinimumAcr(input.minimumAcr);
        if (level !== view.minimumAcr) envSet.minimumAcr = changed.minimumAcr = level;
      }
      if (input.idTokenSignedResponseAlg !== undefined) {
        const alg = checkIdTokenAlg(input.idTokenSignedResponseAlg);
        if (alg !== view.idTokenSignedResponseAlg)
          envSet.idTokenSignedResponseAlg = changed.idTokenSignedResponseAlg = alg;
      }
      if (Object.keys(envSet).length) setEnvironmentFields(db, env.id, envSet);
    }
    if (Object.keys(changed).length === 0) {
      if (!touchesEnvironment) throw new ValidationError('nothing to change');
      return getApplication(db, applicationId); // a reorder, or a narrowing that must wait
    }
    if (touchesEnvironment && environment === 'production' && !input.actor.startsWith('developer:'))
      withdrawPendingReview(db, clock, applicationId, input.actor, 'production changed by an operator');
    setApplicationFields(db, applicationId, { ...appSet, updatedAt: unix(clock) });
    recordAudit(db, clock, {
      actor: input.actor,
      action: 'application.update',
      target: applicationId,
      details: touchesEnvironment ? { environment, ...summarise(changed) } : summarise(changed),
    });
    return { ...getApplication(db, applicationId), ...(pendingReviewId ? { pendingReviewId } : {}) };
  });
}

/** Keeps audit rows small: a full country list is written as its count. */
function summarise(changed: Record<string, unknown>): Record<string, unknown> {
  const out = { ...changed };
  if (Array.isArray(out.documentCountries) && out.documentCountries.length === ALL_COUNTRIES.length)
    out.documentCountries = 'all';
  return out;
}

/**
 * Deletes an application with both environments, credentials, consents, tokens and webhook endpoints
 * (the schema cascades). Its client IDs stop working at once.
 */
export function deleteApplication(
  db: Db,
  clock: Clock,
  applicationId: string,
  opts: { actor: AuditActor },
): void {
  db.sql.transaction(() => {
    const app = deleteApplicationRow(db, applicationId);
    if (!app) throw new NotFoundError(`application ${applicationId} not found`);
    recordAudit(db, clock, {
      actor: opts.actor,
      action: 'application.delete',
      target: applicationId,
      details: { name: app.name },
    });
  });
}
