import { normaliseEmail } from '../developer/developer.store.ts';
import { ValidationError } from '../errors.ts';

export const MIN_PASSWORD = 12;
export const MAX_PASSWORD = 1024;
export const MAX_NAME = 100;

export type Problem = { path: string; message: string };

/** The password rules; problems are keyed by the form's field ids. */
export function passwordProblems(password: string, confirm: string): Problem[] {
  if (password.length < MIN_PASSWORD) return [{ path: 'password', message: 'too_short' }];
  if (password.length > MAX_PASSWORD) return [{ path: 'password', message: 'too_long' }];
  if (password !== confirm) return [{ path: 'confirm', message: 'differ' }];
  return [];
}

export const nameProblems = (name: string): Problem[] =>
  name.trim().length > MAX_NAME ? [{ path: 'name', message: 'too_long' }] : [];

export function emailProblems(email: string): Problem[] {
  try {
    normaliseEmail(email);
    return [];
  } catch (err) {
    if (err instanceof ValidationError) return err.fields;
    throw err;
  }
}

/** Every problem of the form at once, so the person fixes them in one pass. */
export function refuse(problems: Problem[]): void {
  if (problems.length) throw new ValidationError('the form has problems', problems);
}
