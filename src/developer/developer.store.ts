import { type AuditActor, recordAudit } from '../audit/audit.store.ts';
import { randomId, randomToken, sha256Hex } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import type { SqlRow } from '../db/row.ts';
import type { developerInvitations, developers } from '../db/schema/developers.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { type Clock, unix } from '../platform/clock.ts';

export interface Developer {
  developerId: string;
  email: string;
  name: string;
  status: 'active' | 'disabled';
  hasPassword: boolean;
  /** Proved to receive mail at `email`; unverified developers may use sandbox only. */
  emailVerified: boolean;
  createdAt: number;
}

type DeveloperRow = SqlRow<typeof developers>;

const toDeveloper = (r: DeveloperRow): Developer => ({
  developerId: r.id,
  email: r.email,
  name: r.name,
  status: r.status,
  hasPassword: r.password_hash !== null,
  emailVerified: r.email_verified_at !== null,
  createdAt: r.created_at,
});

/** How long an invitation link stays usable. */
export const INVITATION_TTL_SECONDS = 7 * 86_400;

// A plain address (RFC 5321's dot-atom local part, a DNS name): a mail library reads anything more,
// such as `ceo.example.com<x@evil.example>`, as a display name and an address of its own, and would
// verify and mail another mailbox than the one stored.
const ADDRESS =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/;

/** Lower-cased and trimmed, so one mailbox is one developer. */
export function normaliseEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (e.length > 254 || !ADDRESS.test(e))
    throw new ValidationError(`"${email}" is not an email address`, [
      { path: 'email', message: 'must be an email address' },
    ]);
  return e;
}

export function findDeveloper(db: Db, developerId: string): Developer | undefined {
  const row = db.sql.prepare<DeveloperRow>('SELECT * FROM developers WHERE id = ?').get(developerId);
  return row && toDeveloper(row);
}

export function getDeveloper(db: Db, developerId: string): Developer {
  const dev = findDeveloper(db, developerId);
  if (!dev) throw new NotFoundError(`developer ${developerId} not found`);
  return dev;
}

export function findDeveloperByEmail(db: Db, email: string): Developer | undefined {
  const row = db.sql
    .prepare<DeveloperRow>('SELECT * FROM developers WHERE email = ?')
    .get(email.trim().toLowerCase());
  return row && toDeveloper(row);
}

/** The stored argon2id hash, for the portal's sign-in (never leaves the server). */
export function developerPasswordHash(db: Db, developerId: string): string | null {
  return (
    db.sql
      .prepare<{ password_hash: string | null }>('SELECT password_hash FROM developers WHERE id = ?')
      .get(developerId)?.password_hash ?? null
  );
}

export function setDeveloperPassword(db: Db, developerId: string, passwordHash: string): void {
  db.sql.prepare('UPDATE developers SET password_hash = ? WHERE id = ?').run(passwordHash, developerId);
}

/**
 * A sign-in's re-hash of the password it checked: written only if the hash is still `was`, so a change
 * made meanwhile is not undone. Whether it was written.
 */
export function replaceDeveloperPasswordHash(
  db: Db,
  developerId: string,
  was: string,
  hash: string,
): boolean {
  return (
    db.sql
      .prepare('UPDATE developers SET password_hash = ? WHERE id = ? AND password_hash = ?')
      .run(hash, developerId, was).changes === 1
  );
}

export function listDevelopers(db: Db): Developer[] {
  return db.sql
    .prepare<DeveloperRow>('SELECT * FROM developers ORDER BY created_at, email')
    .all()
    .map(toDeveloper);
}

function insertDeveloper(
  db: Db,
  clock: Clock,
  email: string,
  fields: { name?: string; passwordHash?: string | null; verified: boolean },
): string {
  if (db.sql.prepare('SELECT 1 FROM developers WHERE email = ?').get(email))
    throw new ValidationError(`a developer with email ${email} already exists`, [
      { path: 'email', message: 'already registered' },
    ]);
  const id = randomId('dev_');
  const now = unix(clock);
  db.sql
    .prepare(
      `INSERT INTO developers (id, email, name, password_hash, status, created_at, email_verified_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      email,
      fields.name ?? '',
      fields.passwordHash ?? null,
      'active',
      now,
      fields.verified ? now : null,
    );
  return id;
}

/**
 * An operator creates a developer account directly; it has no password until an invitation is accepted.
 * The operator vouches for the address, so it counts as verified; open sign-up passes `verified: false`.
 */
export function createDeveloper(
  db: Db,
  clock: Clock,
  input: { email: string; name?: string; actor?: AuditActor; verified?: boolean; passwordHash?: string },
): { developerId: string } {
  const email = normaliseEmail(input.email);
  return db.sql.transaction(() => {
    const developerId = insertDeveloper(db, clock, email, {
      name: input.name,
      passwordHash: input.passwordHash,
      verified: input.verified ?? true,
    });
    recordAudit(db, clock, {
      actor: input.actor ?? 'cli',
      action: 'developer.create',
      target: developerId,
      details: { email },
    });
    return { developerId };
  });
}

export function setDeveloperStatus(
  db: Db,
  clock: Clock,
  developerId: string,
  status: 'active' | 'disabled',
  opts: { actor?: AuditActor } = {},
): Developer {
  return db.sql.transaction(() => {
    const dev = getDeveloper(db, developerId);
    db.sql.prepare('UPDATE developers SET status = ? WHERE id = ?').run(status, developerId);
    recordAudit(db, clock, {
      actor: opts.actor ?? 'cli',
      action: status === 'disabled' ? 'developer.disable' : 'developer.enable',
      target: developerId,
    });
    return { ...dev, status };
  });
}

export interface Invitation {
  invitationId: string;
  email: string;
  expiresAt: number;
}

/**
 * Creates a one-time invitation. The token is returned once (for the link the operator sends) and only
 * its SHA-256 is stored.
 */
export async function createInvitation(
  db: Db,
  clock: Clock,
  input: { email: string; ttlSeconds?: number; actor?: AuditActor },
): Promise<Invitation & { token: string }> {
  const email = normaliseEmail(input.email);
  const token = randomToken('inv_');
  const tokenHash = await sha256Hex(token);
  const invitationId = randomId('inv_');
  const now = unix(clock);
  const expiresAt = now + (input.ttlSeconds ?? INVITATION_TTL_SECONDS);
  db.sql.transaction(() => {
    const existing = findDeveloperByEmail(db, email);
    if (existing?.hasPassword)
      throw new ValidationError(`developer ${email} has already accepted an invitation`, [
        { path: 'email', message: 'already registered' },
      ]);
    db.sql
      .prepare(
        'INSERT INTO developer_invitations (id, email, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(invitationId, email, tokenHash, now, expiresAt);
    recordAudit(db, clock, {
      actor: input.actor ?? 'cli',
      action: 'developer.invite',
      target: invitationId,
      details: { email, expiresAt },
    });
  });
  return { invitationId, email, expiresAt, token };
}

type InvitationRow = Pick<
  SqlRow<typeof developerInvitations>,
  'id' | 'email' | 'token_hash' | 'expires_at' | 'accepted_at'
>;

/**
 * How long a claim holds an invitation whose account has no password yet. An older one was cut off (a
 * crash while the password was hashed), and the link works again.
 */
const CLAIM_SECONDS = 60;

/** The invitation row of a token, if it can be accepted at `now`: see `claimInvitation`. */
function usableInvitation(db: Db, tokenHash: string, now: number): InvitationRow | undefined {
  const row = db.sql
    .prepare<InvitationRow>('SELECT * FROM developer_invitations WHERE token_hash = ?')
    .get(tokenHash);
  if (!row || row.expires_at <= now || findDeveloperByEmail(db, row.email)?.hasPassword) return undefined;
  return row.accepted_at === null || row.accepted_at <= now - CLAIM_SECONDS ? row : undefined;
}

const invitationOf = (row: InvitationRow): Invitation => ({
  invitationId: row.id,
  email: row.email,
  expiresAt: row.expires_at,
});

/** A usable invitation for this token, or undefined when unknown, expired or already accepted. */
export async function findInvitation(db: Db, clock: Clock, token: string): Promise<Invitation | undefined> {
  const row = usableInvitation(db, await sha256Hex(token), unix(clock));
  return row && invitationOf(row);
}

const unusableInvitation = () => new ValidationError('this invitation is unknown, expired or already used');

/**
 * Claims an invitation before its password is hashed, so that one link posted many times at once costs
 * one hash: the conditional update lets exactly one claim win. Accepting it gives its account a
 * password, which uses it up for good; a claim that fails is given back (`releaseInvitation`), and one
 * cut off by a crash lapses after CLAIM_SECONDS. Throws when the invitation is unknown, expired, used
 * or claimed, or its account has a password already.
 */
export async function claimInvitation(db: Db, clock: Clock, token: string): Promise<Invitation> {
  const hash = await sha256Hex(token);
  return db.sql.transaction(() => {
    const now = unix(clock);
    const row = usableInvitation(db, hash, now);
    const claimed =
      row &&
      db.sql
        .prepare(
          'UPDATE developer_invitations SET accepted_at = ? WHERE id = ? AND (accepted_at IS NULL OR accepted_at <= ?)',
        )
        .run(now, row.id, now - CLAIM_SECONDS).changes === 1;
    if (!claimed) throw unusableInvitation();
    return invitationOf(row);
  });
}

/** Gives back a claimed invitation that could not be accepted. */
export function releaseInvitation(db: Db, invitationId: string): void {
  db.sql.prepare('UPDATE developer_invitations SET accepted_at = NULL WHERE id = ?').run(invitationId);
}

/**
 * Accepts a claimed invitation: creates the developer, or gives a password to the account an operator
 * created beforehand. `passwordHash` is argon2id from `src/crypto/password.ts`.
 */
export function acceptInvitation(
  db: Db,
  clock: Clock,
  invitation: Invitation,
  input: { name?: string; passwordHash: string },
): { developerId: string } {
  return db.sql.transaction(() => {
    const now = unix(clock);
    const existing = findDeveloperByEmail(db, invitation.email);
    let developerId: string;
    if (existing) {
      if (existing.hasPassword) throw unusableInvitation();
      developerId = existing.developerId;
      db.sql
        .prepare(
          `UPDATE developers SET password_hash = ?, name = CASE WHEN ? = '' THEN name ELSE ? END,
             email_verified_at = coalesce(email_verified_at, ?) WHERE id = ?`,
        )
        .run(input.passwordHash, input.name ?? '', input.name ?? '', now, developerId);
    } else {
      // The invitation reached this mailbox: the address is verified.
      developerId = insertDeveloper(db, clock, invitation.email, {
        name: input.name,
        passwordHash: input.passwordHash,
        verified: true,
      });
    }
    recordAudit(db, clock, {
      actor: `developer:${developerId}`,
      action: 'developer.invitation_accept',
      target: invitation.invitationId,
      details: { developerId, email: invitation.email },
    });
    return { developerId };
  });
}

/** Records that the developer received mail at their address (a followed link); idempotent. */
export function markEmailVerified(db: Db, clock: Clock, developerId: string): void {
  db.sql
    .prepare('UPDATE developers SET email_verified_at = coalesce(email_verified_at, ?) WHERE id = ?')
    .run(unix(clock), developerId);
}
