import type { Db } from '../db/open.ts';

/** What the identity experience needs to know about a person. */
export interface FlowPerson {
  id: string;
  environment: 'sandbox' | 'production';
  name: string | null;
  passwordHash: string | null;
  assuranceLevel: 'none' | 'low' | 'substantial' | 'high';
  faceTemplateRef: string | null;
  status: 'active' | 'disabled';
}

interface Row {
  id: string;
  environment: FlowPerson['environment'];
  name: string | null;
  password_hash: string | null;
  assurance_level: FlowPerson['assuranceLevel'];
  face_template_ref: string | null;
  status: FlowPerson['status'];
}

const COLUMNS =
  'p.id, p.environment, p.name, p.password_hash, p.assurance_level, p.face_template_ref, p.status';
const toPerson = (r: Row): FlowPerson => ({
  id: r.id,
  environment: r.environment,
  name: r.name,
  passwordHash: r.password_hash,
  assuranceLevel: r.assurance_level,
  faceTemplateRef: r.face_template_ref,
  status: r.status,
});

/** Read-only access to persons for sign-in and the flow (persons are managed by the CLI). */
export function createFlowPersonStore(db: Db) {
  return {
    get(id: string): FlowPerson | undefined {
      const row = db.sql.prepare<Row>(`SELECT ${COLUMNS} FROM persons p WHERE p.id = ?`).get(id);
      return row && toPerson(row);
    },
    /** A production person by any of their email addresses (case-insensitive). */
    byEmail(email: string): FlowPerson | undefined {
      const row = db.sql
        .prepare<Row>(
          `SELECT ${COLUMNS} FROM persons p JOIN person_emails e ON e.person_id = p.id
           WHERE lower(e.email) = lower(?) AND p.environment = 'production' LIMIT 1`,
        )
        .get(email.trim());
      return row && toPerson(row);
    },
  };
}
