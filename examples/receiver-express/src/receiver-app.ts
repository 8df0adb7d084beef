import type { WebhookEnvelope, WebhookSecret } from '@svc/webhooks-verify';
import { verifyWebhookMiddleware } from '@svc/webhooks-verify/express';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';

/** What a verified delivery looked like on the wire, for handlers that want more than the envelope. */
export interface DeliveryContext {
  /** The body exactly as received (what the signature covers). */
  rawBody: string;
  /** The `X-Service-Signature` header. */
  signature: string;
}

/**
 * Handles one verified delivery. Return the status to answer (any 2xx marks it
 * delivered; anything else makes the service retry), or nothing for 204.
 */
export type DeliveryHandler = (
  envelope: WebhookEnvelope,
  context: DeliveryContext,
) => number | undefined | Promise<number | undefined>;

/** Options of {@link createReceiverApp}. */
export interface ReceiverAppOptions {
  /**
   * The signing secret, several during a rotation (any may match), or a function
   * returning the current one(s) so a rotation needs no restart.
   */
  secret: WebhookSecret | (() => WebhookSecret);
  /**
   * Path deliveries are posted to.
   * @default '/webhooks'
   */
  path?: string;
  /** @default answers 204 */
  onDelivery?: DeliveryHandler;
  /** @default console.log */
  log?: (line: string) => void;
}

/**
 * An Express receiver: raw body, signature check, deduplication on `webhookId`,
 * then your handler. The raw body parser is the important part: a JSON parser
 * would re-serialise the body and the signature would never match.
 *
 * @example
 * ```ts
 * createReceiverApp({ secret: process.env.WEBHOOK_SECRET! }).listen(4000);
 * ```
 */
export function createReceiverApp(options: ReceiverAppOptions): Express {
  const log = options.log ?? console.log;
  const { secret } = options;
  const handle = options.onDelivery ?? (() => 204);
  // Processed deliveries by webhookId: the same id arrives again after a lost answer or a replay.
  // A real receiver keeps this in its database, in the same transaction as the work.
  const processed = new Set<string>();
  const app = express();
  app.disable('x-powered-by');
  app.post(
    options.path ?? '/webhooks',
    logRejections(log),
    // No body parser in front: the middleware checks the signature header before it reads the body
    // (at most 1 MiB), then leaves the raw bytes on req.body.
    verifyWebhookMiddleware({ getSecret: () => (typeof secret === 'function' ? secret() : secret) }),
    async (req: Request, res: Response) => {
      const envelope = req.webhook as WebhookEnvelope;
      if (processed.has(envelope.webhookId)) {
        log(`↺ duplicate ${envelope.webhookId} (${envelope.eventType}) acknowledged, not processed again`);
        res.sendStatus(200);
        return;
      }
      const context = {
        rawBody: (req.body as Buffer).toString('utf8'),
        signature: String(req.headers['x-service-signature']),
      };
      const status = (await handle(envelope, context)) ?? 204;
      if (status >= 200 && status < 300) processed.add(envelope.webhookId);
      log(
        `${status < 300 ? '✔' : '✘'} ${envelope.eventType} ${envelope.webhookId} attempt ${envelope.attempt}: signature verified, answered ${status}`,
      );
      res.sendStatus(status);
    },
  );
  return app;
}

/** Logs every delivery the signature check refused (the middleware answers those 401 itself). */
function logRejections(log: (line: string) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    res.on('finish', () => {
      if (res.statusCode === 401)
        log(
          `✘ rejected ${req.headers['x-service-webhook-id'] ?? 'a delivery'}: signature did not verify (401)`,
        );
    });
    next();
  };
}
