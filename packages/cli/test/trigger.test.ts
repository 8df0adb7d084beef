import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startTestReceiver, type TestReceiver } from '@svc/test-support';
import { buildExampleEnvelope, builtInEvents } from '@svc/webhooks-core';
import { buildEventEnvelopeSchema } from '@svc/webhooks-core/schemas';
import { toStandardSecret, verifyStandardWebhook, verifyWebhook } from '@svc/webhooks-verify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runBin, SECRET, tempFile } from './run-cli';

/*
 * `trigger` against the real local HTTPS receiver of the test support package, trusted through --ca (its
 * certificate is self-signed, as a developer's local one often is).
 */

let receiver: TestReceiver;
let ca: string;

beforeAll(async () => {
  receiver = await startTestReceiver();
  ca = tempFile('receiver-ca.pem', receiver.ca);
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 204, body: '' }));
});

const HOST_EVENTS = fileURLToPath(new URL('./fixtures/host-events.mjs', import.meta.url));

function trigger(eventType: string, ...extra: string[]) {
  return runBin(['trigger', eventType, '--url', receiver.url, '--secret', SECRET, '--ca', ca, ...extra]);
}

function lastDelivery() {
  const request = receiver.requests.at(-1);
  if (!request) throw new Error('the receiver got nothing');
  return {
    request,
    envelope: verifyWebhook(request.rawBody, request.headers['x-service-signature'], SECRET),
  };
}

describe('svc-webhooks trigger', () => {
  it('POSTs the event’s example, signed with the secret, with the service’s headers', async () => {
    const run = await trigger('quote_approved');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^→ POST https:\/\/127\.0\.0\.1:\d+\/hooks quote_approved whdel_cli_/);
    expect(run.stdout).toContain('← 204 No Content');
    const { request, envelope } = lastDelivery();
    const { webhookId, createdOn, deliveredAt, ...example } = buildExampleEnvelope(builtInEvents[4]);
    expect(envelope).toMatchObject(example);
    expect(buildEventEnvelopeSchema(builtInEvents[4]).parse(envelope)).toEqual(envelope);
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-webhook-id': envelope.webhookId,
      'x-service-event-type': 'quote_approved',
      'user-agent': expect.stringMatching(/^svc-webhooks-cli\//),
    });
    // Signed when sent, like the service: t is the envelope's deliveredAt.
    expect(request.headers['x-service-signature']).toMatch(new RegExp(`^t=${envelope.deliveredAt},v1=`));
  });

  it('sends no Standard Webhooks header under the default service scheme', async () => {
    await trigger('job_created');
    const headers = Object.keys(lastDelivery().request.headers);
    expect(headers.filter((name) => name.startsWith('webhook-'))).toEqual([]);
  });

  it('--scheme standard sends the Standard Webhooks headers the service sends, and no X-Service-Signature', async () => {
    const run = await trigger('job_created', '--scheme', 'standard', '--set', 'deliveredAt=1767225600999');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^→ POST \S+ job_created whdel_cli_\S+ \(standard\)\n/);
    const request = receiver.requests.at(-1);
    if (!request) throw new Error('the receiver got nothing');
    const envelope = verifyStandardWebhook(request.rawBody, request.headers, SECRET, {
      now: 1_767_225_600_000,
    });
    expect(request.headers).toMatchObject({
      // webhook-id is the envelope's webhookId, the timestamp the whole seconds of deliveredAt.
      'webhook-id': envelope.webhookId,
      'webhook-timestamp': '1767225600',
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
      'x-service-webhook-id': envelope.webhookId,
      'x-service-event-type': 'job_created',
    });
    expect(request.headers['x-service-signature']).toBeUndefined();
  });

  it('--scheme standard signs alike with the whsec_ form of the secret', async () => {
    const run = await runBin([
      'trigger',
      'job_created',
      '--url',
      receiver.url,
      '--ca',
      ca,
      '--scheme',
      'standard',
      '--secret',
      toStandardSecret(SECRET),
    ]);
    expect(run.code).toBe(0);
    const request = receiver.requests.at(-1);
    expect(() => verifyStandardWebhook(request?.rawBody ?? '', request?.headers ?? {}, SECRET)).not.toThrow();
  });

  it('--scheme both sends both families from one signing time', async () => {
    const run = await trigger('quote_approved', '--scheme', 'both', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, scheme: 'both' });
    const { request, envelope } = lastDelivery();
    expect(verifyStandardWebhook(request.rawBody, request.headers, SECRET)).toEqual(envelope);
    expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(envelope.deliveredAt / 1000)));
    expect(request.headers['webhook-id']).toBe(envelope.webhookId);
  });

  it('refuses an unknown --scheme with exit 2, and sends nothing', async () => {
    const run = await trigger('job_created', '--scheme', 'svix');
    expect(run.code).toBe(2);
    expect(receiver.requests).toHaveLength(0);
  });

  it('gives each trigger its own webhookId, so a receiver does not drop the second as a duplicate', async () => {
    await trigger('job_cancelled');
    await trigger('job_cancelled');
    const [first, second] = receiver.requests.map((request) => request.headers['x-service-webhook-id']);
    expect(first).not.toBe(second);
  });

  it('--set changes fields before signing: JSON values as JSON, other text as text', async () => {
    const run = await trigger(
      'job_cancelled',
      '--set',
      'metadata.jobNumber=7',
      '--set',
      'metadata.reason=Tenant moved out',
      '--set',
      'attempt=2',
      '--set',
      'deliveredAt=1767225600000',
    );
    expect(run.code).toBe(0);
    const request = receiver.requests.at(-1);
    const envelope = verifyWebhook(request?.rawBody ?? '', request?.headers['x-service-signature'], SECRET, {
      now: 1_767_225_600_000,
    });
    expect(envelope).toMatchObject({
      attempt: 2,
      deliveredAt: 1_767_225_600_000,
      metadata: { jobNumber: 7, reason: 'Tenant moved out' },
    });
    expect(Object.keys(envelope)[0]).toBe('webhookId');
  });

  it('refuses a --set that breaks the event’s schema, with exit 2, and sends nothing', async () => {
    const run = await trigger('job_cancelled', '--set', 'metadata.jobNumber=soon');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no longer a valid job_cancelled: metadata.jobNumber');
    expect(receiver.requests).toHaveLength(0);
  });

  it('exits 1 and prints the start of the answer when the receiver refuses', async () => {
    receiver.respond(() => ({ status: 401, body: '{"error":{"code":"signature_mismatch"}}' }));
    const run = await trigger('job_created', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      statusCode: 401,
      eventType: 'job_created',
      excerpt: '{"error":{"code":"signature_mismatch"}}',
    });
  });

  it('sends a host’s own event type from its events module', async () => {
    const run = await trigger('job_fulfilment_started', '--events', HOST_EVENTS);
    expect(run.code).toBe(0);
    expect(lastDelivery().envelope).toMatchObject({
      eventType: 'job_fulfilment_started',
      entityType: 'job',
      metadata: { fulfilmentId: 'ful_5Tg1Yc', startedAt: 1_767_225_600_000 },
    });
  });

  it('without --ca, exits 3 and says how to trust the certificate', async () => {
    const run = await runBin(['trigger', 'job_created', '--url', receiver.url, '--secret', SECRET]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('pass --ca <file.pem>');
    expect(receiver.requests).toHaveLength(0);
  });

  it('exits 3 when nothing listens at the URL', async () => {
    const port = await closedPort();
    const run = await runBin([
      'trigger',
      'job_created',
      '--url',
      `http://127.0.0.1:${port}/hooks`,
      '--secret',
      SECRET,
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('nothing accepts connections at http://127.0.0.1:');
  });
});

/** A port that was just free: a server took it and closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
