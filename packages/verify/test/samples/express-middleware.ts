import { verifyWebhookMiddleware } from '@svc/webhooks-verify/express';
import express, { type Express } from 'express';

export const app: Express = express();

app.post(
  '/webhooks',
  // No body parser: the middleware reads the raw body itself, after checking the signature header.
  verifyWebhookMiddleware({ secret: process.env.WEBHOOK_SECRET! }),
  (req, res) => {
    const envelope = req.webhook!; // verified and parsed
    console.log(envelope.webhookId, envelope.eventType);
    res.sendStatus(204);
  },
);
