import { WebhookError } from '@svc/webhooks-core';

/**
 * A write was given a host transaction, which Redis adapters cannot join: Redis
 * has no transaction that spans another database, and writing outside it would
 * break the host's atomicity silently.
 */
export function rejectTransaction(adapter: 'queue' | 'store'): WebhookError {
  return new WebhookError(
    'transactions_unsupported',
    `The Redis ${adapter} cannot join a host transaction (capabilities.transactions is false). ` +
      'Call it without `transaction`; with a PostgreSQL store, enqueue after the commit and rely on the recovery sweep.',
  );
}

/** Redis answered something a script never returns: a bug or a foreign key in our namespace. */
export function unexpectedReply(operation: string, reply: unknown): WebhookError {
  return new WebhookError('store_error', `Unexpected reply from Redis to ${operation}.`, {
    details: { operation, reply: typeof reply },
  });
}
