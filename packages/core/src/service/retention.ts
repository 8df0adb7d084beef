import type { WebhookStore } from '../adapters/store';
import { InvalidOptionError } from '../errors';
import { positiveIntegerOption } from '../validation';

/**
 * How long finished deliveries are kept, in ms since their `createdAt`; the
 * worker deletes older ones, with their attempt histories. Pending deliveries
 * are never deleted, however old. Finished bulk recoveries (`completed` or
 * `cancelled`) follow `failedMs`, counted from their `completedAt`; a running
 * one is never deleted.
 */
export interface RetentionOptions {
  /**
   * Age after which a `success` delivery is deleted.
   * @default 2_592_000_000 (30 days)
   */
  successMs?: number;
  /**
   * Age after which a `failed` delivery is deleted: longer by default, since a
   * failed one may still be looked at or replayed. Also how long a finished bulk
   * recovery (`completed` or `cancelled`) is kept after its `completedAt`: a
   * recovery is the record of failed deliveries being replayed, so it goes on
   * their clock rather than an age of its own.
   * @default 7_776_000_000 (90 days)
   */
  failedMs?: number;
}

/** Retention as the worker applies it: both ages resolved. */
export interface RetentionSettings {
  successMs: number;
  failedMs: number;
}

/** Thirty days: the default retention of `success` deliveries. */
export const DEFAULT_SUCCESS_RETENTION_MS = 2_592_000_000;
/** Ninety days: the default retention of `failed` deliveries. */
export const DEFAULT_FAILED_RETENTION_MS = 7_776_000_000;

/**
 * The service's `retention` option, checked against its store: null when it is
 * `false`, or when it is left at its default and the store cannot purge (such a
 * store keeps everything, as it always did). Asked for explicitly of a store that
 * cannot purge, it throws rather than silently keeping what was meant to go.
 *
 * @throws InvalidOptionError (an age that is not a positive integer; retention asked of a store without `capabilities.purge`)
 */
export function resolveRetention(
  option: RetentionOptions | false | undefined,
  store: WebhookStore,
): RetentionSettings | null {
  if (option === false) return null;
  const settings = {
    successMs: positiveIntegerOption('retention.successMs', option?.successMs, DEFAULT_SUCCESS_RETENTION_MS),
    failedMs: positiveIntegerOption('retention.failedMs', option?.failedMs, DEFAULT_FAILED_RETENTION_MS),
  };
  if (store.capabilities.purge && store.purgeDeliveries) return settings;
  if (option === undefined) return null;
  throw new InvalidOptionError(
    '@svc/webhooks-core',
    'retention',
    'retention needs a store that can delete old deliveries, and this store declares capabilities.purge: false. ' +
      'Pass `retention: false` and delete old deliveries by other means, or use a store with capabilities.purge.',
  );
}
