/**
 * Side effects that must wait for COMMIT (waking the webhook dispatcher, say). Work that may commit
 * runs inside `collect`, which gathers the callbacks it registers; whoever owns the transaction then
 * runs them once it has committed (`settle`) or drops them with a rollback.
 */
export class CommitHooks {
  private readonly scopes: (() => void)[][] = [];

  /** Runs fn after the current transaction commits; at once when no transaction is being tracked. */
  add(fn: () => void): void {
    const scope = this.scopes.at(-1);
    if (scope) scope.push(fn);
    else fn();
  }

  /** Runs body and returns what it registered; if body throws, its callbacks are dropped with it. */
  collect<T>(body: () => T): { value: T; hooks: (() => void)[] } {
    const hooks: (() => void)[] = [];
    this.scopes.push(hooks);
    try {
      return { value: body(), hooks };
    } finally {
      this.scopes.pop();
    }
  }

  /**
   * Hands committed callbacks on: to the enclosing scope when there is one (a savepoint inside a
   * larger transaction is not yet durable), otherwise runs them now.
   */
  settle(hooks: (() => void)[]): void {
    for (const fn of hooks) this.add(fn);
  }
}
