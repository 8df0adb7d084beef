import { createServer, type Server } from 'node:http';
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '@svc/webhooks-verify';

/**
 * A typed receiver: verifyWebhook returns a union over the event types, so in each `case` below
 * `metadata` has that event's shape, and a misspelt field does not compile.
 */
export function createTypedReceiver(secret: string, log: (line: string) => void): Server {
  const processed = new Set<string>(); // at-least-once: dedupe on webhookId (in your database, for real)
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let event: WebhookEvent;
    try {
      event = verifyWebhook(Buffer.concat(chunks), req.headers['x-service-signature'], secret);
    } catch (error) {
      log(error instanceof WebhookVerificationError ? `rejected: ${error.code}` : String(error));
      res.writeHead(error instanceof WebhookVerificationError ? 401 : 500).end();
      return;
    }
    if (!processed.has(event.webhookId)) {
      processed.add(event.webhookId);
      log(describe(event));
    }
    res.writeHead(204).end();
  });
}

function describe(event: WebhookEvent): string {
  switch (event.eventType) {
    case 'job_created':
      return `job #${event.metadata.jobNumber} created (property ${event.metadata.propertyId ?? 'none'})`;
    case 'job_cancelled':
      return `job #${event.metadata.jobNumber} cancelled: ${event.metadata.reason}`;
    case 'quote_approved':
      return `quote ${event.entityId} approved for job #${event.metadata.jobNumber}`;
    case 'property_created':
      return `property created at ${event.metadata.address.formatted}`;
    case 'webhook_test':
      return `test delivery for ${event.metadata.agencyId}`;
    default:
      return `${event.eventType} about ${event.entityType} ${event.entityId}`;
  }
}
