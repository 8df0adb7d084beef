import { StoreUnavailableError } from '@svc/webhooks-core';

/** How long a caller is told to wait before retrying: about what a Redis Cluster failover takes once detected. */
export const RETRY_AFTER_MS = 1_000;

/** Server replies (their first word) that mean "this node cannot serve the slot right now". */
const TRANSIENT_REPLIES = new Set([
  'CLUSTERDOWN',
  'TRYAGAIN',
  'MOVED',
  'ASK',
  'LOADING',
  'READONLY',
  'MASTERDOWN',
  'NOREPLICAS',
]);

/** Socket errors of a node going away or not there yet. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTCONN',
]);

/** ioredis' own errors (matched by name or message start: it exports few of them as classes). */
const CLIENT_ERROR_NAMES = new Set(['ClusterAllFailedError', 'MaxRetriesPerRequestError']);
const CLIENT_MESSAGE_STARTS = [
  'Too many Cluster redirections',
  'Connection is closed',
  'Command aborted due to connection close',
  'None of startup nodes is available',
  'Failed to refresh slots cache',
  'Command timed out',
  "Cluster isn't ready and enableOfflineQueue",
  "Stream isn't writeable and enableOfflineQueue",
  'Socket timeout',
];

/**
 * True for an error that says Redis cannot be reached or cannot serve the slot
 * for a moment (a failover, a restart, a connection being re-established),
 * rather than a mistake in the call: retrying the same call later is expected
 * to work.
 */
export function isTransientRedisError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof StoreUnavailableError) return true;
  if (CLIENT_ERROR_NAMES.has(error.name)) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  const message = error.message;
  if (CLIENT_MESSAGE_STARTS.some((start) => message.startsWith(start))) return true;
  if (/^connect E[A-Z]+/.test(message)) return true;
  return TRANSIENT_REPLIES.has(message.split(' ', 1)[0] ?? '');
}

/** The typed error a caller gets instead of a transient client error (the client's error is its `cause`). */
export function storeUnavailable(cause: unknown): StoreUnavailableError {
  if (cause instanceof StoreUnavailableError) return cause;
  return new StoreUnavailableError('Redis', RETRY_AFTER_MS, { cause });
}

/** Rethrows `error` as a {@link StoreUnavailableError} when it is transient, unchanged otherwise. */
export function translateRedisError(error: unknown): unknown {
  return isTransientRedisError(error) ? storeUnavailable(error) : error;
}

/**
 * The adapter object with every method's transient Redis errors turned into
 * {@link StoreUnavailableError}: the one place where the adapters' calls meet
 * the client's failure modes, so no raw ioredis error reaches a caller.
 */
export function withUnavailableErrors<T extends object>(adapter: T): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(adapter)) {
    guarded[name] =
      typeof value === 'function'
        ? async (...args: unknown[]) => {
            try {
              return await value(...args);
            } catch (error) {
              throw translateRedisError(error);
            }
          }
        : value;
  }
  return guarded as T;
}
