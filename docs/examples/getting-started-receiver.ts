import { createServer, type Server } from 'node:http';
import { verifyWebhook, type WebhookEnvelope, WebhookVerificationError } from '@svc/webhooks-verify';

/**
 * A receiver with nothing but Node: verify the raw bytes, answer 401 when they
 * do not verify, answer 2xx quickly when they do.
 */
export function createReceiver(secret: string, handle: (envelope: WebhookEnvelope) => void): Server {
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const envelope = verifyWebhook(Buffer.concat(chunks), req.headers['x-service-signature'], secret);
      handle(envelope); // deliveries are at-least-once: dedupe on envelope.webhookId
      res.writeHead(204).end();
    } catch (error) {
      res.writeHead(error instanceof WebhookVerificationError ? 401 : 500).end();
    }
  });
}
