import { webhookHandler } from '@svc/webhooks-verify/fetch';

export default {
  fetch: (request: Request, env: { WEBHOOK_SECRET: string }) =>
    webhookHandler(env.WEBHOOK_SECRET, async (envelope) => {
      console.log(envelope.eventType);
      return new Response(null, { status: 204 });
    })(request),
};
