import { type StandardKeys, verifyStandardWebhook, WebhookVerificationError } from '@svc/webhooks-verify';
import express, { type Express } from 'express';

// The router's GET <mount>/public-keys/:agencyId, e.g. https://api.example.com/webhooks/public-keys/agency_9Wd4Rt
const PUBLIC_KEYS_URL = process.env.WEBHOOK_PUBLIC_KEYS_URL!;
const MAX_AGE_MS = 300_000; // the router sends Cache-Control: max-age=300

let cached: { keys: Promise<StandardKeys>; fetchedAt: number } | undefined;

/** The agency's JWKS, fetched again every five minutes: a rotated key signs beside the old one meanwhile. */
function publicKeys(): Promise<StandardKeys> {
  if (cached === undefined || Date.now() - cached.fetchedAt > MAX_AGE_MS) {
    const keys = fetch(PUBLIC_KEYS_URL).then((response) => {
      if (!response.ok) throw new Error(`GET ${PUBLIC_KEYS_URL}: HTTP ${response.status}`);
      return response.json() as Promise<StandardKeys>;
    });
    keys.catch(() => (cached = undefined)); // retry on the next delivery
    cached = { keys, fetchedAt: Date.now() };
  }
  return cached.keys;
}

export const app: Express = express();

app.post('/webhooks', express.raw({ type: 'application/json' }), async (req, res) => {
  try {
    // Verifies the v1a (Ed25519) entries of webhook-signature; no shared secret on this side.
    const envelope = verifyStandardWebhook(req.body, req.headers, await publicKeys());
    console.log(envelope.webhookId);
    res.sendStatus(204);
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      res.status(401).json({ error: { code: error.code, message: error.message } });
    } else throw error;
  }
});
