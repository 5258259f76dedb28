import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import type { Db } from '../db/open.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { type Clock, unix } from '../platform/clock.ts';
import { createCapabilityStore } from './capability.store.ts';
import {
  buildCatalogue,
  type Capability,
  type CapabilityBodies,
  type Catalogue,
  capabilityBodies,
  normalizeCountry,
  normalizeDocumentType,
} from './catalogue.ts';

/** The effective catalogue as stored now. */
export function loadCatalogue(db: Db): Catalogue {
  return buildCatalogue(createCapabilityStore(db).listOverrides());
}

/**
 * The public bodies, rebuilt only when the overrides changed. Each call costs one read of the
 * capabilities cache version, which any write to the overrides moves (an operator's change, from any
 * process, is therefore served on the very next request).
 */
export function liveCapabilities(db: Db): () => CapabilityBodies {
  const store = createCapabilityStore(db);
  let version: number | undefined;
  let bodies: CapabilityBodies | undefined;
  return () => {
    const v = store.version();
    if (v !== version || !bodies) {
      version = v;
      bodies = capabilityBodies(buildCatalogue(store.listOverrides()));
    }
    return bodies;
  };
}

export interface SetAvailabilityInput {
  country: string;
  documentType: string;
  available: boolean;
  /** Who made the change, for the audit log (default: an operator at the CLI). */
  actor?: AuditActor;
}

export interface SetAvailabilityResult {
  capability: Capability;
  previous: boolean;
}

/**
 * An operator turns one country-document pair of the dataset on or off. Only pairs the dataset knows can
 * be changed: Verity has no capture methods or fields for anything else.
 */
export function setAvailability(db: Db, clock: Clock, input: SetAvailabilityInput): SetAvailabilityResult {
  const country = normalizeCountry(input.country);
  if (!country)
    throw new ValidationError('invalid country code', [
      { path: 'country', message: 'an ISO 3166-1 alpha-2 code, e.g. DE' },
    ]);
  const documentType = normalizeDocumentType(input.documentType);
  if (!documentType)
    throw new NotFoundError(
      `unknown document type "${input.documentType}" (passport, id_card, driving_licence or residence_permit)`,
    );
  const store = createCapabilityStore(db);
  const before = buildCatalogue(store.listOverrides()).country(country);
  if (!before) throw new NotFoundError(`country ${country} is not in the capability dataset`);
  const pair = before.documents.find((d) => d.documentType === documentType);
  if (!pair) throw new NotFoundError(`the capability dataset has no ${documentType} for ${country}`);

  const at = unix(clock);
  db.sql.transaction(() => {
    store.setOverride({ country, documentType, available: input.available, updatedAt: at });
    recordAudit(db, clock, {
      actor: input.actor ?? 'cli',
      action: 'capability.set',
      target: `${country}/${documentType}`,
      details: { available: input.available, previous: pair.available },
    });
  });
  const after = loadCatalogue(db)
    .country(country)
    ?.documents.find((d) => d.documentType === documentType);
  return { capability: after ?? pair, previous: pair.available };
}
