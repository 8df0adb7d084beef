import { signStandardWebhook, toStandardSecret, verifyWebhook } from '@svc/webhooks-verify';

const secret = 'c'.repeat(64); // your signing secret: 64 hex characters

// A delivery as the service sends it to an agency on Standard Webhooks (signatureScheme: 'standard').
const body = JSON.stringify({ webhookId: 'whdel_01', eventType: 'webhook_test', metadata: {} });
const seconds = Math.floor(Date.now() / 1000);
const headers = {
  'webhook-id': 'whdel_01',
  'webhook-timestamp': String(seconds),
  'webhook-signature': signStandardWebhook(body, secret, 'whdel_01', seconds), // "v1,<base64>"
};

// The receiver passes all the headers: webhook-signature is verified with the same secret.
const event = verifyWebhook(body, headers, secret);
console.log(event.webhookId, event.eventType); // whdel_01 webhook_test

// Standard Webhooks libraries (any language) take the secret's whsec_ form, never the hex:
console.log(toStandardSecret(secret)); // whsec_Y2Nj…
