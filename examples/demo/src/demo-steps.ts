import { isWebhookVerificationError, verifyWebhook } from '@svc/webhooks-verify';
import { type ApiAnswer, type ApiCall, waitUntil } from './api-client';
import type { DemoReceiver } from './demo-receiver';
import { check, detail, section } from './report';
import { jobCancelled, jobCompleted, jobCreated, propertyCreated, quoteApproved } from './sample-events';

/** What every step needs: the API client (owner token), the receiver and the agency the token belongs to. */
export interface DemoContext {
  api: ApiCall;
  receiver: DemoReceiver;
  agencyId: string;
  /** A token of an `agent`-role user of the same agency. */
  agentRoleToken: string;
}

const SUBSCRIPTIONS = ['job_created', 'quote_approved', 'property_created', 'job_cancelled', 'job_completed'];

/** Creates the configuration through PUT /config and returns the full secret (shown once). */
export async function createConfiguration(ctx: DemoContext): Promise<string> {
  section('1. Create the webhook configuration');
  const body = { webhookUrl: ctx.receiver.url, enabled: true, subscribedEventTypes: SUBSCRIPTIONS };
  const refused = await ctx.api('PUT', '/v1/agency/webhooks/config', { body, token: ctx.agentRoleToken });
  check(
    refused.status === 403 && refused.body.error.code === 'forbidden',
    'an agent-role token is refused: 403 forbidden',
    refused.body,
  );
  const insecure = await ctx.api('PUT', '/v1/agency/webhooks/config', {
    body: { ...body, webhookUrl: ctx.receiver.url.replace('https:', 'http:') },
  });
  check(
    insecure.status === 400 && insecure.body.error.details?.reason === 'not_https',
    'an http:// URL is refused: 400 invalid_webhook_url (not_https)',
    insecure.body,
  );
  const created = await ctx.api('PUT', '/v1/agency/webhooks/config', { body });
  const secret: string = created.body.signingSecret;
  check(
    created.status === 201 && /^[0-9a-f]{64}$/.test(secret),
    `PUT /config → 201 Created, webhookUrl ${created.body.webhookUrl}`,
    created.body,
  );
  detail(`signing secret (shown this once): ${secret}`);
  ctx.receiver.useSecret(secret);
  const read = await ctx.api('GET', '/v1/agency/webhooks/config');
  check(
    read.status === 200 && read.body.signingSecret === `service_whsec_********${secret.slice(-4)}`,
    `GET /config → 200, secret masked: ${read.body.signingSecret}`,
    read.body,
  );
  return secret;
}

/** Emits an event through the host's demo endpoint and returns the delivery id. */
export async function emit(ctx: DemoContext, event: { eventType: string }): Promise<string> {
  const answer = await ctx.api('POST', '/demo/emit', { body: event });
  check(
    answer.status === 202 && typeof answer.body.deliveryId === 'string',
    `emit ${event.eventType} → delivery ${answer.body.deliveryId}`,
    answer.body,
  );
  return answer.body.deliveryId;
}

function readDelivery(ctx: DemoContext, id: string): () => Promise<ApiAnswer> {
  return () => ctx.api('GET', `/v1/agency/webhooks/deliveries/${id}`);
}

/** Emits job_created, quote_approved and property_created and follows each to `success`. */
export async function deliverThreeEvents(ctx: DemoContext): Promise<void> {
  section('2. Emit three events (host side: webhooks.emit, here via POST /demo/emit)');
  for (const event of [
    jobCreated(ctx.agencyId),
    quoteApproved(ctx.agencyId),
    propertyCreated(ctx.agencyId),
  ]) {
    const id = await emit(ctx, event);
    const received = await ctx.receiver.waitFor((delivery) => delivery.envelope.webhookId === `whdel_${id}`);
    check(
      received.envelope.eventType === event.eventType,
      `receiver verified the signature of ${event.eventType} and answered ${received.status}`,
    );
    const done = await waitUntil(
      readDelivery(ctx, id),
      (answer) => answer.body.status === 'success',
      `${id} to succeed`,
    );
    check(
      done.body.attempt === 1 && done.body.lastResponseCode === 204,
      `GET /deliveries/${id} → success at attempt 1`,
      done.body,
    );
  }
}

/** Prints the delivery list. */
export async function showDeliveryList(ctx: DemoContext, expected: number): Promise<void> {
  const list = await ctx.api('GET', '/v1/agency/webhooks/deliveries?limit=20');
  check(
    list.status === 200 && list.body.deliveries.length === expected,
    `GET /deliveries → ${expected} deliveries, newest first`,
    list.body,
  );
  for (const delivery of list.body.deliveries) {
    detail(
      `${delivery.id}  ${delivery.eventType.padEnd(17)} ${delivery.status.padEnd(8)} attempt ${delivery.attempt}  HTTP ${delivery.lastResponseCode}`,
    );
  }
}

/**
 * A delivery the receiver refuses until it is `failed`, then a replay that succeeds at attempt 6.
 * Resolves with that delivery's id.
 */
export async function failAndReplay(ctx: DemoContext): Promise<string> {
  section('4. A delivery the receiver keeps refusing, then a replay');
  ctx.receiver.answer((envelope) => (envelope.eventType === 'job_cancelled' ? 503 : null));
  detail('the receiver now answers 503 to job_cancelled (retry schedule shortened to 100 ms for the demo)');
  const id = await emit(ctx, jobCancelled(ctx.agencyId));
  const failed = await waitUntil(
    readDelivery(ctx, id),
    (answer) => answer.body.status === 'failed',
    `${id} to fail`,
  );
  check(
    failed.body.attempt === 5 && failed.body.lastResponseCode === 503 && failed.body.nextRetryAt === null,
    `after 5 attempts: status failed, lastResponseCode 503, no retry scheduled`,
    failed.body,
  );
  const delivered = await ctx.api('GET', '/v1/agency/webhooks/deliveries?status=success&limit=1');
  const notReplayable = await ctx.api(
    'POST',
    `/v1/agency/webhooks/deliveries/${delivered.body.deliveries[0].id}/replay`,
  );
  check(
    notReplayable.status === 409 && notReplayable.body.error.code === 'delivery_not_replayable',
    'replaying a successful delivery is refused: 409 delivery_not_replayable',
    notReplayable.body,
  );
  ctx.receiver.answer(() => null);
  detail('the receiver is fixed and answers 204 again');
  const replay = await ctx.api('POST', `/v1/agency/webhooks/deliveries/${id}/replay`);
  check(
    replay.status === 202 && replay.body.deliveryId === id,
    `POST /deliveries/${id}/replay → 202 "${replay.body.message}"`,
    replay.body,
  );
  const done = await waitUntil(
    readDelivery(ctx, id),
    (answer) => answer.body.status === 'success',
    `${id} to succeed`,
  );
  check(done.body.attempt === 6, 'the replayed delivery succeeded at attempt 6', done.body);
  return id;
}

/** Rotates the secret and shows the next delivery verifies with the new secret only. */
export async function rotateSecret(ctx: DemoContext, oldSecret: string): Promise<void> {
  section('6. Rotate the signing secret');
  const rotated = await ctx.api('POST', '/v1/agency/webhooks/config/rotate-secret');
  const secret: string = rotated.body.signingSecret;
  check(
    rotated.status === 200 && /^[0-9a-f]{64}$/.test(secret) && secret !== oldSecret,
    'POST /config/rotate-secret → 200 with a new secret',
    rotated.body,
  );
  detail(`new signing secret (shown this once): ${secret}`);
  ctx.receiver.useSecret(secret);
  const id = await emit(ctx, jobCompleted(ctx.agencyId));
  const received = await ctx.receiver.waitFor((delivery) => delivery.envelope.webhookId === `whdel_${id}`);
  const envelope = verifyWebhook(received.rawBody, received.signature, secret);
  check(
    envelope.eventType === 'job_completed',
    'the next delivery (job_completed) verifies with the new secret',
  );
  check(
    verificationCode(received, oldSecret) === 'signature_mismatch',
    'the same delivery checked with the old secret fails: signature_mismatch',
  );
}

function verificationCode(delivery: { rawBody: string; signature: string }, secret: string): string | null {
  try {
    verifyWebhook(delivery.rawBody, delivery.signature, secret);
    return null;
  } catch (error) {
    return isWebhookVerificationError(error) ? error.code : 'unexpected';
  }
}

/** Calls the test endpoint with the receiver accepting, then refusing. */
export async function sendTestEvents(ctx: DemoContext): Promise<void> {
  section('7. Send test events');
  const ok = await ctx.api('POST', '/v1/agency/webhooks/config/test');
  check(
    ok.status === 200 && ok.body.success === true && ok.body.statusCode === 204,
    `POST /config/test → success: "${ok.body.message}"`,
    ok.body,
  );
  const test = await ctx.receiver.waitFor((delivery) => delivery.envelope.eventType === 'webhook_test');
  check(test.envelope.entityId === ctx.agencyId, 'the receiver verified the webhook_test event');
  ctx.receiver.answer((envelope) => (envelope.eventType === 'webhook_test' ? 500 : null));
  const refused = await ctx.api('POST', '/v1/agency/webhooks/config/test');
  check(
    refused.status === 200 &&
      refused.body.success === false &&
      refused.body.statusCode === 500 &&
      refused.body.message.includes('500'),
    `with the receiver answering 500 → success false: "${refused.body.message}"`,
    refused.body,
  );
}
