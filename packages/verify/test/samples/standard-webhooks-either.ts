import { verifyWebhook, WebhookVerificationError } from '@svc/webhooks-verify';
import express, { type Express } from 'express';

export const app: Express = express();

app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
  try {
    // All the headers: webhook-signature (Standard Webhooks) when present, else X-Service-Signature.
    const envelope = verifyWebhook(req.body, req.headers, process.env.WEBHOOK_SECRET!);
    console.log(envelope.webhookId);
    res.sendStatus(204);
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      res.status(401).json({ error: { code: error.code, message: error.message } });
    } else throw error;
  }
});
