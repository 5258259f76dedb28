import type { AppContext } from '../context.ts';
import type { AuthorizationRequest } from '../oauth/authorization-result.ts';
import { meetsLevel } from '../persons/assurance.ts';
import type { FlowPerson } from '../persons/person.store.ts';
import { unix } from '../platform/clock.ts';
import type { Session } from '../web/session.store.ts';

/** Whether the person's assurance level falls short of the level the request requires. */
export const assuranceUnmet = (req: AuthorizationRequest, person: FlowPerson) =>
  req.requiredAcr !== undefined && !meetsLevel(person.assuranceLevel, req.requiredAcr);

/**
 * Whether a face check passed earlier in this sign-in session still covers a new authorization
 * (`[face] reuse_within`; "0s", the default, never). A fresh sign-in starts without one.
 */
export function faceCheckReusable(ctx: AppContext, session: Session): boolean {
  const window = ctx.config.face.reuse_within;
  if (window <= 0 || session.faceVerifiedAt === null) return false;
  return (unix(ctx.clock) - session.faceVerifiedAt) * 1000 < window;
}
