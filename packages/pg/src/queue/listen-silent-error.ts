import { WebhookError } from '@svc/webhooks-core';

/**
 * Reported (never thrown) when the queue's LISTEN cannot hear the database's
 * notifications: the pool goes through a transaction pooler and no `listen`
 * connection was given, or a notification the queue sent itself did not arrive.
 * Workers then poll instead, often enough that deliveries stay on time, at the
 * cost of a claim statement per poll.
 */
export class ListenSilentError extends WebhookError {
  constructor(message: string) {
    super('listen_silent', `@svc/webhooks-pg: ${message}`);
  }
}
