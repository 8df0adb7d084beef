// app/api/webhooks/route.ts
import { webhookHandler } from '@svc/webhooks-verify/fetch';

export const POST = webhookHandler(process.env.WEBHOOK_SECRET!, async (envelope) => {
  // store envelope.webhookId to deduplicate, then queue the work
  console.log(envelope.webhookId);
  return new Response(null, { status: 204 });
});
