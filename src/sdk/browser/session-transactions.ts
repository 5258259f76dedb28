import * as v from 'valibot';
import type { TransactionStore } from '../transaction.store.ts';
import type { Transaction } from '../transaction.ts';

/** What is read back from storage is checked: script on the page or an old SDK may have left anything. */
const StoredTransaction = v.object({
  id: v.string(),
  sessionId: v.string(),
  state: v.string(),
  nonce: v.string(),
  codeVerifier: v.string(),
  redirectUri: v.string(),
  createdAt: v.string(),
  consumed: v.boolean(),
  display: v.picklist(['page', 'popup']),
  returnTo: v.optional(v.string()),
  maxAge: v.optional(v.number()),
  prompt: v.optional(v.picklist(['none', 'login', 'consent'])),
  claims: v.optional(v.string()),
});

/**
 * Transactions of a single-page app in the tab's `sessionStorage` (one key per transaction): bound to
 * the tab and the origin that started the sign-in, gone when the tab closes. Every operation is
 * synchronous and the storage belongs to this tab alone, so `markConsumed` cannot race.
 */
export function sessionTransactionStore(storage: Storage, prefix = 'verity.transaction.'): TransactionStore {
  const keys = () => {
    const out: string[] = [];
    for (let i = 0; i < storage.length; i++) {
      const k = storage.key(i);
      if (k?.startsWith(prefix)) out.push(k);
    }
    return out;
  };
  const read = (key: string): Transaction | undefined => {
    let raw: unknown;
    try {
      raw = JSON.parse(storage.getItem(key) ?? 'null');
    } catch {
      raw = undefined;
    }
    const parsed = v.safeParse(StoredTransaction, raw);
    if (parsed.success && prefix + parsed.output.id === key) return parsed.output;
    storage.removeItem(key); // unreadable: never a candidate for a callback
    return undefined;
  };
  const all = () => keys().flatMap((k) => read(k) ?? []);

  return {
    save(tx) {
      storage.setItem(prefix + tx.id, JSON.stringify(tx));
    },
    findBySession: (sessionId) => all().filter((t) => t.sessionId === sessionId),
    markConsumed(id) {
      const tx = read(prefix + id);
      if (!tx || tx.consumed) return false;
      storage.setItem(prefix + id, JSON.stringify({ ...tx, consumed: true }));
      return true;
    },
    discard(id) {
      storage.removeItem(prefix + id);
    },
    prune(before) {
      for (const t of all())
        if (Date.parse(t.createdAt) < before.getTime()) storage.removeItem(prefix + t.id);
    },
  };
}
