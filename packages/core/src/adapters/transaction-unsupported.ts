import { WebhookError } from '../errors';
import type { TransactionOptions } from './store';

/**
 * Throws when a caller passes a host transaction to an adapter that cannot join
 * one. Writing outside the host's transaction would silently break the outbox
 * guarantee (the delivery would survive a rollback), so refusing is the only
 * safe answer.
 */
export function assertNoTransaction(options: TransactionOptions | undefined, adapter: string): void {
  if (options?.transaction === undefined) return;
  throw new WebhookError(
    'transactions_unsupported',
    `The ${adapter} cannot join a host transaction (capabilities.transactions is false). ` +
      'Call it without `transaction`, or use an adapter that supports transactions, such as @svc/webhooks-pg.',
  );
}
