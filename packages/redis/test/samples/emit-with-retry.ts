import { type EmitInput, StoreUnavailableError, type WebhookService } from '@svc/webhooks-core';

/**
 * Emits, and retries while the store is unavailable for a moment (a Redis failover).
 * The same `eventId` on every try makes the retries idempotent: at most one delivery.
 */
export async function emitWithRetry(
  webhooks: WebhookService,
  input: EmitInput & { eventId: string },
  tries = 20,
): Promise<{ deliveryId: string } | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await webhooks.emit(input);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || attempt >= tries) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(error.retryAfterMs, 100 * attempt)));
    }
  }
}
