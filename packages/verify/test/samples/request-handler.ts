import { verifyWebhookRequest } from '@svc/webhooks-verify/fetch';

// Hono: app.post('/webhooks', (c) => handleWebhook(c.req.raw, c.env.WEBHOOK_SECRET))
// Deno, Bun: Deno.serve((request) => handleWebhook(request, secret))
export async function handleWebhook(request: Request, secret: string): Promise<Response> {
  const envelope = await verifyWebhookRequest(request, secret); // throws WebhookVerificationError
  console.log(envelope.eventType);
  return new Response(null, { status: 204 });
}
