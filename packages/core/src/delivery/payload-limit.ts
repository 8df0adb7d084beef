import { PayloadTooLargeError, WebhookValidationError } from '../errors';

/** Default of the service's `maxPayloadBytes`: 256 KiB of serialised metadata. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;

/**
 * Refuses a new delivery whose metadata receivers could never get, before anything is stored: metadata
 * JSON cannot write (a BigInt, a cycle, a throwing `toJSON`) would otherwise fail in the worker on
 * every lease, and an oversized payload would be re-sent whole on every attempt.
 *
 * The size measured is the serialised metadata in UTF-8 bytes, as it goes into every delivery body
 * (the envelope's other fields add a few hundred bytes).
 *
 * @throws {@link WebhookValidationError} `validation_failed` at `metadata` when it cannot be serialised
 * @throws {@link PayloadTooLargeError} when it is over `maxBytes`
 */
export function assertDeliverablePayload(
  event: { eventType: string; metadata: Record<string, unknown> },
  maxBytes: number,
): void {
  let json: string;
  try {
    json = JSON.stringify(event.metadata);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new WebhookValidationError(
      `Invalid ${event.eventType} event at "metadata": it cannot be serialised as JSON (${reason}).`,
      [{ path: 'metadata', message: `Cannot be serialised as JSON: ${reason}` }],
      'validation_failed',
    );
  }
  // Each UTF-16 unit is at most 3 UTF-8 bytes: most payloads skip the exact count.
  if (json.length * 3 <= maxBytes) return;
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) throw new PayloadTooLargeError(event.eventType, bytes, maxBytes);
}
