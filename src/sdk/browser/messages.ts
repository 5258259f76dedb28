import * as v from 'valibot';

/** The type of the completion message the callback page posts to its opener. */
export const COMPLETION_TYPE = 'service:oauth:complete';

/** What the application's own transaction endpoint answers: nothing secret, only these two fields. */
export const TransactionResponse = v.object({
  transactionId: v.pipe(v.string(), v.minLength(1), v.maxLength(512)),
  authorizationUrl: v.pipe(
    v.string(),
    v.url(),
    v.check((u) => /^https?:$/.test(new URL(u).protocol), 'authorizationUrl must be http(s)'),
  ),
});
export type TransactionResponse = v.InferOutput<typeof TransactionResponse>;

export const CompletionMessage = v.object({
  type: v.literal(COMPLETION_TYPE),
  transactionId: v.string(),
});
export type CompletionMessage = v.InferOutput<typeof CompletionMessage>;
