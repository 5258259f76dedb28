import type { Environment } from '../environment.ts';
export const EVENT_TYPES = [
  'oauth.authorization.completed',
  'claim_access.completed',
  'consent.granted',
  'consent.revoked',
  'webhook.test',
  'token.revoked',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export type ConsentEndReason =
  | 'revoked_by_person'
  | 'revoked_by_developer'
  | 'revoked_by_operator'
  | 'expired'
  | 'disconnected';

/** The `data` payload of each event kind (DESIGN.md §5). */
export interface EventData {
  'consent.granted': {
    consentId: string;
    applicationId: string;
    environment: Environment;
    sub: string;
    scopes: string[];
    purpose: string;
    at: string;
  };
  'consent.revoked': EventData['consent.granted'] & { reason: ConsentEndReason };
  'oauth.authorization.completed': {
    applicationId: string;
    environment: Environment;
    sub: string;
    scopes: string[];
    authTime: number;
    acr: string;
  };
  'claim_access.completed': {
    applicationId: string;
    environment: Environment;
    decision: 'approved' | 'denied' | 'failed';
    reason?: string;
    sub?: string;
    scopes: string[];
  };
  'webhook.test': { endpointId: string };
  /** An access token its client revoked (RFC 7009); the consent stays in force. */
  'token.revoked': {
    applicationId: string;
    environment: Environment;
    sub: string;
    consentId: string;
    reason: 'revoked_by_client';
    at: string;
  };
}

export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  createdAt: string;
  data: EventData[T];
}
