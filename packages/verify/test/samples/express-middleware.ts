import { verifyWebhookMiddleware } from '@svc/webhooks-verify/express';
import express, { type Express } from 'express';

export const app: Express = express();

app.post(
  '/webhooks',
  express.raw({ type: 'application/json' }),
  verifyWebhookMiddleware({ secret: process.env.WEBHOOK_SECRET! }),
  (req, res) => {
    const envelope = req.webhook!; // verified and parsed
    console.log(envelope.webhookId, envelope.eventType);
    res.sendStatus(204);
  },
);
