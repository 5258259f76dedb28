/**
 * Applies what a single-use link was used up for: hashing its new password, then the change. The link
 * is used up first, so that one link posted many times at once costs one hash; when applying fails (a
 * busy hashing pool, a database error), the link is given back.
 */
export async function applyUsedLink<T>(giveBack: () => void, apply: () => Promise<T> | T): Promise<T> {
  try {
    return await apply();
  } catch (e) {
    giveBack();
    throw e;
  }
}
