import { InvalidOptionError, WebhookError } from '@svc/webhooks-core';

/** Starts every message this package addresses to the host developer. */
const PACKAGE_NAME = '@svc/webhooks-redis';

/** An adapter option the adapters cannot work with (`invalid_option`, names the option). */
export function invalidOption(option: string, message: string): InvalidOptionError {
  return new InvalidOptionError(PACKAGE_NAME, option, message);
}

/**
 * A write was given a host transaction, which Redis adapters cannot join: Redis
 * has no transaction that spans another database, and writing outside it would
 * break the host's atomicity silently.
 */
export function rejectTransaction(adapter: 'queue' | 'store'): WebhookError {
  return new WebhookError(
    'transactions_unsupported',
    `${PACKAGE_NAME}: The Redis ${adapter} cannot join a host transaction (capabilities.transactions is false). ` +
      'Call it without `transaction`; with a PostgreSQL store, enqueue after the commit and run ' +
      "core's createRecoverySweep for a crash in between.",
  );
}

/**
 * Redis answered something a script never returns: a bug, or another program
 * writing keys in the adapter's namespace.
 */
export function unexpectedReply(operation: string, reply: unknown): WebhookError {
  return new WebhookError(
    'store_error',
    `${PACKAGE_NAME}: Unexpected reply from Redis to ${operation}. Another program may be writing keys ` +
      'under this prefix: give each application its own `prefix` option. Otherwise please report it as a bug.',
    { details: { operation, reply: typeof reply } },
  );
}

/** A claim with options the queue refuses (the core worker never passes such). */
export function invalidClaim(message: string): WebhookError {
  return new WebhookError('validation_failed', `${PACKAGE_NAME}: claim: ${message}`);
}
