import express, { type Express } from 'express';
import { Webhook } from 'standardwebhooks';

export const app: Express = express();

// The whsec_ form of the secret (standardSigningSecret in the API's answer), never the 64-hex form.
const webhook = new Webhook(process.env.WEBHOOK_SECRET_WHSEC!);

app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
  let envelope: { webhookId: string; eventType: string };
  try {
    envelope = webhook.verify(req.body, req.headers as Record<string, string>) as typeof envelope;
  } catch {
    res.sendStatus(401);
    return;
  }
  console.log(envelope.webhookId, envelope.eventType);
  res.sendStatus(204);
});
