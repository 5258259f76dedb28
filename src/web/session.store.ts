import { hmacSha256Base64url } from '../crypto/digest.ts';
import { randomToken, sha256Hex, timingSafeEqual } from '../crypto/tokens.ts';
import type { Db } from '../db/open.ts';
import type { SqlRow } from '../db/row.ts';
import type { sessions } from '../db/schema/sessions.ts';

export type SessionKind = 'identity' | 'developer';

export interface Session {
  idHash: string;
  /** False for an anonymous session, which has no row. */
  stored: boolean;
  kind: SessionKind;
  /** Person (identity) or developer (portal) once signed in. */
  subjectId: string | null;
  csrfSecret: string;
  /** When the subject signed in (unix seconds). */
  authTime: number | null;
  amr: string[];
  /** When the signed-in person last passed face assurance in this session (unix seconds). */
  faceVerifiedAt: number | null;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

type Row = SqlRow<typeof sessions>;

const toSession = (r: Row): Session => ({
  idHash: r.id_hash,
  stored: true,
  kind: r.kind,
  subjectId: r.subject_id,
  csrfSecret: r.csrf_secret,
  authTime: r.auth_time,
  amr: JSON.parse(r.amr) as string[],
  faceVerifiedAt: r.face_verified_at,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
});

export interface SessionTimeouts {
  /** Seconds of inactivity after which the session ends. */
  idle: number;
  /** Seconds after creation after which the session ends, however active. */
  absolute: number;
}

/** A cookie value as `randomToken('', 32)` makes it: 256 bits, base64url. */
export const isSessionToken = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);

/**
 * The CSRF token of an anonymous session's page: when it was issued, and an HMAC of that keyed with the
 * cookie, so nobody without the cookie can make one and a form validates without a stored row. It
 * expires like an idle session would.
 */
const anonymousCsrf = (token: string, kind: SessionKind, issuedAt: number) =>
  `${issuedAt}.${hmacSha256Base64url(token, `csrf:${kind}:${issuedAt}`)}`;

/** Whether `sent` is a CSRF token issued for this cookie within the idle timeout. */
export async function anonymousCsrfValid(
  token: string,
  kind: SessionKind,
  sent: string,
  now: number,
  t: SessionTimeouts,
): Promise<boolean> {
  const issuedAt = Number(sent.split('.')[0]);
  if (!Number.isSafeInteger(issuedAt) || issuedAt > now || now - issuedAt >= t.idle) return false;
  return timingSafeEqual(sent, anonymousCsrf(token, kind, issuedAt));
}

/**
 * The session behind a cookie that has no live row: anonymous, and not stored until the subject signs
 * in. Its id is not the one a stored session of the same cookie had, so what was bound to a session
 * that ended (an authorization request) stays out of reach.
 */
export async function anonymousSession(
  kind: SessionKind,
  token: string,
  now: number,
  t: SessionTimeouts,
): Promise<Session> {
  return {
    idHash: await sha256Hex(`anonymous:${token}`),
    stored: false,
    kind,
    subjectId: null,
    csrfSecret: anonymousCsrf(token, kind, now),
    authTime: null,
    amr: [],
    faceVerifiedAt: null,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + t.absolute,
  };
}

/**
 * Server-side browser sessions. The cookie carries 256 random bits; only their SHA-256 is stored, so a
 * database reader cannot replay a session. A row exists only once a subject signed in
 * (`anonymousSession` stands for the others), so a page view writes nothing.
 */
export function createSessionStore(db: Db) {
  return {
    /**
     * The live session behind a cookie value, its idle clock reset; undefined (and the row removed)
     * when it is unknown, of another kind, idle too long or past its absolute lifetime.
     */
    async resume(
      kind: SessionKind,
      token: string,
      now: number,
      t: SessionTimeouts,
    ): Promise<Session | undefined> {
      if (!token) return undefined;
      const idHash = await sha256Hex(token);
      const row = db.sql.prepare<Row>('SELECT * FROM sessions WHERE id_hash = ?').get(idHash);
      if (!row || row.kind !== kind) return undefined;
      if (now >= row.expires_at || now - row.last_seen_at >= t.idle) {
        db.sql.prepare('DELETE FROM sessions WHERE id_hash = ?').run(idHash);
        return undefined;
      }
      if (row.last_seen_at !== now)
        db.sql.prepare('UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?').run(now, idHash);
      return toSession({ ...row, last_seen_at: now });
    },

    /**
     * Signs a subject in: a fresh session id (so an id planted before sign-in is worthless) that keeps
     * the absolute deadline of the old one, and anything bound to the old id moved to the new one.
     * Undefined, storing nothing, when `unchanged` (asked in the same transaction) says the credential
     * it was checked against has changed meanwhile.
     */
    async signIn(
      old: Session,
      subject: { subjectId: string; authTime: number; amr: string[] },
      now: number,
      unchanged: () => boolean = () => true,
    ): Promise<{ token: string; session: Session } | undefined> {
      const token = randomToken('', 32);
      const idHash = await sha256Hex(token);
      const session: Session = {
        ...old,
        idHash,
        stored: true,
        subjectId: subject.subjectId,
        authTime: subject.authTime,
        amr: subject.amr,
        // A face check belongs to the sign-in it followed.
        faceVerifiedAt: null,
        csrfSecret: randomToken('', 32),
        lastSeenAt: now,
      };
      const stored = db.sql.transaction(() => {
        if (!unchanged()) return false;
        db.sql
          .prepare(
            `INSERT INTO sessions (id_hash, kind, subject_id, csrf_secret, auth_time, amr, created_at, last_seen_at, expires_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            idHash,
            session.kind,
            session.subjectId,
            session.csrfSecret,
            session.authTime,
            JSON.stringify(session.amr),
            session.createdAt,
            now,
            session.expiresAt,
          );
        db.sql
          .prepare('UPDATE authorization_requests SET session_id_hash = ? WHERE session_id_hash = ?')
          .run(idHash, old.idHash);
        // A persona's consents and sharing switches stay with the browser session (consent/holder.ts).
        db.sql
          .prepare('UPDATE consents SET session_id_hash = ? WHERE session_id_hash = ?')
          .run(idHash, old.idHash);
        db.sql
          .prepare('UPDATE persona_document_sharing SET session_id_hash = ? WHERE session_id_hash = ?')
          .run(idHash, old.idHash);
        db.sql.prepare('DELETE FROM sessions WHERE id_hash = ?').run(old.idHash);
        return true;
      });
      return stored ? { token, session } : undefined;
    },

    /** Records a passed face check of the session's signed-in person. */
    recordFaceCheck(idHash: string, subjectId: string, at: number): void {
      db.sql
        .prepare('UPDATE sessions SET face_verified_at = ? WHERE id_hash = ? AND subject_id = ?')
        .run(at, idHash, subjectId);
    },

    /** When the session ends at the latest (its absolute deadline); undefined when there is none. */
    deadline(idHash: string): number | undefined {
      return db.sql
        .prepare<{ expires_at: number }>('SELECT expires_at FROM sessions WHERE id_hash = ?')
        .get(idHash)?.expires_at;
    },

    /** Whether the session is still stored: not signed out, reset or taken back meanwhile. */
    exists(idHash: string): boolean {
      return db.sql.prepare('SELECT 1 AS one FROM sessions WHERE id_hash = ?').get(idHash) !== undefined;
    },

    delete(idHash: string): void {
      db.sql.prepare('DELETE FROM sessions WHERE id_hash = ?').run(idHash);
    },

    /** Ends every session of the subject; returns how many. */
    deleteAll(kind: SessionKind, subjectId: string): number {
      return db.sql.prepare('DELETE FROM sessions WHERE kind = ? AND subject_id = ?').run(kind, subjectId)
        .changes;
    },

    /** Ends every session of the subject but the one kept; returns how many. */
    deleteOthers(kind: SessionKind, subjectId: string, keepIdHash: string): number {
      return db.sql
        .prepare('DELETE FROM sessions WHERE kind = ? AND subject_id = ? AND id_hash != ?')
        .run(kind, subjectId, keepIdHash).changes;
    },

    /** Removes sessions past either timeout; returns how many. */
    purgeExpired(now: number, kind: SessionKind, t: SessionTimeouts): number {
      return db.sql
        .prepare('DELETE FROM sessions WHERE kind = ? AND (expires_at <= ? OR last_seen_at <= ?)')
        .run(kind, now, now - t.idle).changes;
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
