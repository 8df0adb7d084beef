import { createServer, type Server } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@svc/webhooks-verify';

/**
 * A receiver that avoids the four usual causes of failed verification:
 * it hashes the raw bytes (never re-serialised JSON), reads them before any
 * body parser can alter them, allows 10 minutes of clock drift, and accepts the
 * previous secret while a rotation is rolled out. It logs the error code, which
 * names the cause.
 */
export function createTolerantReceiver(secrets: string[], log: (line: string) => void): Server {
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const envelope = verifyWebhook(Buffer.concat(chunks), req.headers['x-service-signature'], secrets, {
        toleranceMs: 600_000,
      });
      log(`accepted ${envelope.webhookId}`);
      res.writeHead(204).end();
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) {
        res.writeHead(500).end();
        return;
      }
      log(`rejected: ${error.code}`);
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error.code }));
    }
  });
}
