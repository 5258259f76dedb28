import { ValidationError } from '../errors.ts';

/** One broken registration rule: the message names the rule, `path` names the input that broke it. */
export function ruleViolation(path: string, message: string, fieldMessage = message): ValidationError {
  return new ValidationError(message, [{ path, message: fieldMessage }]);
}
