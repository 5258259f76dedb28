import { recordAudit } from '../../audit/audit.store.ts';
import type { ConsentHolder } from '../../consent/consent.store.ts';
import type { ConsentRecord } from '../../consent/lifecycle.store.ts';
import { createConsentLifecycleStore } from '../../consent/lifecycle.store.ts';
import type { AppContext } from '../../context.ts';
import { createDocumentStore, type SharedDocument } from '../../documents/document.store.ts';
import type { Environment } from '../../environment.ts';
import { NotFoundError } from '../../errors.ts';
import { unix } from '../../platform/clock.ts';

export interface ConnectedApplication {
  applicationId: string;
  name: string;
  environment: Environment;
  consents: ConsentRecord[];
}

export interface AccountOverview {
  applications: ConnectedApplication[];
  /** The person's active documents (disabled ones are gone from the account). */
  documents: SharedDocument[];
}

/**
 * What the account page shows: the applications the holder has consents in force with (each
 * consent with its purpose, scopes, when it was given and last used), and the person's documents with
 * the sharing switch.
 */
export function accountOverview(ctx: AppContext, holder: ConsentHolder): AccountOverview {
  const consents = createConsentLifecycleStore(ctx.db).activeForHolder(holder, unix(ctx.clock));
  const apps = new Map<string, ConnectedApplication>();
  for (const c of consents) {
    let a = apps.get(c.applicationId);
    if (!a) {
      a = {
        applicationId: c.applicationId,
        name: c.applicationName,
        environment: c.environment,
        consents: [],
      };
      apps.set(c.applicationId, a);
    }
    a.consents.push(c);
  }
  const documents = createDocumentStore(ctx.db)
    .forHolder(holder)
    .filter((d) => d.status === 'active');
  return {
    applications: [...apps.values()].sort((x, y) => x.name.localeCompare(y.name)),
    documents,
  };
}

/**
 * The holder's sharing switch for one of their documents; takes effect on the applications' next read.
 * A sandbox persona's switch is the session's own, as its consents are.
 */
export function setDocumentSharing(
  ctx: AppContext,
  holder: ConsentHolder,
  documentId: string,
  enabled: boolean,
): void {
  ctx.db.sql.transaction(() => {
    if (!createDocumentStore(ctx.db).setSharing(holder, documentId, enabled, unix(ctx.clock)))
      throw new NotFoundError(`no document ${documentId}`);
    recordAudit(ctx.db, ctx.clock, {
      actor: `person:${holder.personId}`,
      action: enabled ? 'document.share' : 'document.unshare',
      target: documentId,
    });
  });
}
