import {
  asymmetricSignersOf,
  jobCancelled,
  type ReceivedRequest,
  type ServiceHarness,
  standardSignatureEntries,
  startServiceHarness,
  verifyStandardRequest,
} from '@svc/test-support';
import {
  parseSignatureHeader,
  toStandardSecret,
  verifyStandardWebhookSignature,
  verifyWebhook,
} from '@svc/webhooks-verify';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  PutConfigBody,
  PutConfigResult,
  SignatureScheme,
  WebhookEndpointDisabledEvent,
} from '../src/index';

let harness: ServiceHarness;

afterEach(async () => {
  await harness?.close();
});

async function configure(
  scheme: SignatureScheme,
  extra: Partial<PutConfigBody> = {},
  agencyId = 'agency-a',
): Promise<PutConfigResult> {
  return harness.webhooks.putConfig(agencyId, {
    webhookUrl: harness.receiver.urlFor(`/${agencyId}`),
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
    signatureScheme: scheme,
    ...extra,
  });
}

/** Emits one event and waits until its delivery has `status`; returns the delivery's id. */
async function deliverOne(
  status: 'success' | 'failed' = 'success',
  agencyId = 'agency-a',
  jobNumber = 7,
): Promise<string> {
  const emitted = await harness.webhooks.emit(jobCancelled(agencyId, jobNumber));
  const deliveryId = emitted?.deliveryId as string;
  await harness.waitForStatus(agencyId, deliveryId, status);
  return deliveryId;
}

function requestsOf(deliveryId: string): ReceivedRequest[] {
  return harness.receiver.requests.filter((r) => r.headers['webhook-id'] === `whdel_${deliveryId}`);
}

describe("signatureScheme 'standard' through a real HTTPS receiver", () => {
  it('every delivery verifies with the unmodified standardwebhooks package, with the whsec_ form and the hex secret', async () => {
    harness = await startServiceHarness();
    const created = await configure('standard');
    expect(created.standardSigningSecret).toBe(toStandardSecret(created.signingSecret));
    const deliveryId = await deliverOne();

    const [request] = requestsOf(deliveryId);
    const envelope = verifyStandardRequest(request!, created.standardSigningSecret as string);
    expect(envelope).toMatchObject({
      webhookId: `whdel_${deliveryId}`,
      eventType: 'job_cancelled',
      attempt: 1,
    });
    expect(verifyStandardRequest(request!, created.signingSecret)).toEqual(envelope);
    expect(request!.headers).toMatchObject({
      'webhook-id': `whdel_${deliveryId}`,
      'webhook-timestamp': String(Math.floor((envelope as { deliveredAt: number }).deliveredAt / 1000)),
      'x-service-webhook-id': `whdel_${deliveryId}`,
      'x-service-event-type': 'job_cancelled',
    });
    expect(request!.headers['x-service-signature'], 'the spec header is not sent').toBeUndefined();
    expect(standardSignatureEntries(request!).map((entry) => entry.version)).toEqual(['v1']);
  });

  it('the rotated secret signs from the next attempt, in both of its forms', async () => {
    harness = await startServiceHarness();
    await configure('standard');
    const rotated = await harness.webhooks.rotateSecret('agency-a');
    expect(rotated.standardSigningSecret).toBe(toStandardSecret(rotated.signingSecret));
    const [request] = requestsOf(await deliverOne());
    expect(verifyStandardRequest(request!, rotated.standardSigningSecret as string)).toBeTruthy();
  });

  it('webhook-id is the same on every retry and on a replay, and each attempt verifies', async () => {
    harness = await startServiceHarness();
    const { signingSecret } = await configure('standard');
    harness.receiver.respond(() => ({ status: 500 }));
    const deliveryId = await deliverOne('failed');
    harness.receiver.respond(() => ({ status: 200 }));
    await harness.webhooks.replay('agency-a', deliveryId);
    await harness.waitForStatus('agency-a', deliveryId, 'success');

    const requests = requestsOf(deliveryId);
    expect(requests).toHaveLength(6);
    expect(harness.receiver.requests).toHaveLength(6);
    for (const request of requests) {
      expect(request.headers['x-service-webhook-id']).toBe(`whdel_${deliveryId}`);
      expect((verifyStandardRequest(request, signingSecret) as { attempt: number }).attempt).toBeGreaterThan(
        0,
      );
    }
    expect(requests.map((r) => JSON.parse(r.rawBody).attempt)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a test send carries the Standard Webhooks headers too', async () => {
    harness = await startServiceHarness();
    const { signingSecret } = await configure('standard');
    expect(await harness.webhooks.sendTest('agency-a')).toMatchObject({ success: true });
    const [request] = harness.receiver.requests;
    expect(verifyStandardRequest(request!, signingSecret)).toMatchObject({ eventType: 'webhook_test' });
  });
});

describe("signatureScheme 'both'", () => {
  it('sends both families, each verifying, every time from one clock read', async () => {
    harness = await startServiceHarness();
    const { signingSecret, standardSigningSecret } = await configure('both');
    expect(standardSigningSecret).toBe(toStandardSecret(signingSecret));
    const deliveryId = await deliverOne();

    const [request] = requestsOf(deliveryId);
    const spec = verifyWebhook(
      request!.rawBody,
      request!.headers['x-service-signature'] as string,
      signingSecret,
    );
    const standard = verifyStandardRequest(request!, signingSecret);
    expect(standard).toEqual(spec);
    // Our verifier given the headers picks the Standard Webhooks signature.
    expect(verifyWebhook(request!.rawBody, request!.headers, signingSecret)).toEqual(spec);
    const t = parseSignatureHeader(request!.headers['x-service-signature'] as string).timestamp;
    expect(t).toBe(spec.deliveredAt);
    expect(request!.headers['webhook-timestamp']).toBe(String(Math.floor(t / 1000)));
  });

  it('keeps the clock read of each attempt: a moved clock moves t, deliveredAt and webhook-timestamp together', async () => {
    let offset = -3_000_500;
    harness = await startServiceHarness({ service: { clock: () => Date.now() + offset } });
    const { signingSecret } = await configure('both');
    const [first] = requestsOf(await deliverOne('success', 'agency-a', 1));
    offset = -1_999;
    const [second] = requestsOf(await deliverOne('success', 'agency-a', 2));
    for (const request of [first!, second!]) {
      const t = parseSignatureHeader(request.headers['x-service-signature'] as string).timestamp;
      expect(JSON.parse(request.rawBody).deliveredAt).toBe(t);
      expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(t / 1000)));
      const verified = verifyStandardWebhookSignature(request.rawBody, request.headers, signingSecret, {
        toleranceMs: 3_600_000,
      });
      expect(verified.timestamp).toBe(Math.floor(t / 1000) * 1000);
    }
  });
});

describe('v1a (Ed25519) signatures', () => {
  it('are opt-in: each attempt carries v1 then v1a, and v1a verifies with node:crypto against the JWKS', async () => {
    harness = await startServiceHarness();
    const created = await configure('standard', { asymmetricSignatures: true });
    expect(created).toMatchObject({ asymmetricSignatures: true });
    const jwks = await harness.webhooks.getPublicKeys('agency-a');
    const [key] = created.signingPublicKeys;
    expect(jwks.keys).toEqual([
      { kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: key!.kid, use: 'sig', alg: 'EdDSA' },
    ]);
    expect(key!.kid).toMatch(/^whkey_/);

    const [request] = requestsOf(await deliverOne());
    expect(standardSignatureEntries(request!).map((entry) => entry.version)).toEqual(['v1', 'v1a']);
    expect(asymmetricSignersOf(request!, jwks.keys)).toEqual([key!.kid]);
    expect(verifyStandardRequest(request!, created.signingSecret), 'v1 still verifies').toBeTruthy();
    expect(
      verifyStandardWebhookSignature(request!.rawBody, request!.headers, [key!.publicKey]),
      'our verifier with the whpk_ key alone',
    ).toMatchObject({ id: request!.headers['webhook-id'] });
  });

  it('rotation with an overlap: both keys sign (new first) until it ends, then only the new one', async () => {
    let offset = -120_000;
    harness = await startServiceHarness({ service: { clock: () => Date.now() + offset } });
    await configure('standard', { asymmetricSignatures: true });
    const before = await harness.webhooks.getPublicKeys('agency-a');
    const rotatedAt = Date.now() + offset;
    const { signingPublicKeys } = await harness.webhooks.rotateSigningKey('agency-a', { overlapMs: 60_000 });
    const [active, retiring] = signingPublicKeys;
    expect(signingPublicKeys).toHaveLength(2);
    expect(active).toMatchObject({ expiresAt: null });
    expect(retiring).toMatchObject({ kid: before.keys[0]?.kid, expiresAt: expect.any(Number) });
    expect(retiring!.expiresAt! - rotatedAt).toBeGreaterThanOrEqual(60_000);
    expect(retiring!.expiresAt! - rotatedAt).toBeLessThan(61_000);

    const during = await harness.webhooks.getPublicKeys('agency-a');
    expect(during.keys.map((k) => k.kid)).toEqual([active!.kid, retiring!.kid]);
    const [overlapping] = requestsOf(await deliverOne('success', 'agency-a', 1));
    expect(asymmetricSignersOf(overlapping!, during.keys)).toEqual([active!.kid, retiring!.kid]);

    offset = 0; // 120 s later: the overlap has ended.
    const [after] = requestsOf(await deliverOne('success', 'agency-a', 2));
    expect(asymmetricSignersOf(after!, during.keys)).toEqual([active!.kid]);
    expect((await harness.webhooks.getPublicKeys('agency-a')).keys.map((k) => k.kid)).toEqual([active!.kid]);
    expect((await harness.webhooks.getConfig('agency-a')).signingPublicKeys.map((k) => k.kid)).toEqual([
      active!.kid,
    ]);

    // The store drops the expired key at the next key write.
    await harness.webhooks.rotateSigningKey('agency-a');
    const stored = await harness.webhooks.store.getConfig('agency-a');
    expect(stored?.signingKeys.map((k) => k.kid)).not.toContain(retiring!.kid);
    expect(stored?.signingKeys).toHaveLength(2);
  });

  it('rotation with overlapMs 0 retires the old key at once', async () => {
    harness = await startServiceHarness();
    await configure('both', { asymmetricSignatures: true });
    const old = await harness.webhooks.getPublicKeys('agency-a');
    const { signingPublicKeys } = await harness.webhooks.rotateSigningKey('agency-a', { overlapMs: 0 });
    expect(signingPublicKeys).toEqual([expect.objectContaining({ expiresAt: null })]);
    const jwks = await harness.webhooks.getPublicKeys('agency-a');
    const [request] = requestsOf(await deliverOne());
    expect(asymmetricSignersOf(request!, [...jwks.keys, ...old.keys])).toEqual([signingPublicKeys[0]!.kid]);
    expect(await harness.webhooks.store.getConfig('agency-a')).toMatchObject({
      signingKeys: [expect.anything()],
    });
  });

  it("the service's signingKeyOverlapMs is the default overlap", async () => {
    let now = 1_700_000_000_000;
    harness = await startServiceHarness({ service: { clock: () => now, signingKeyOverlapMs: 5_000 } });
    await configure('standard', { asymmetricSignatures: true });
    const { signingPublicKeys } = await harness.webhooks.rotateSigningKey('agency-a');
    expect(signingPublicKeys[1]).toMatchObject({ expiresAt: now + 5_000 });
    now += 5_000;
    expect((await harness.webhooks.getPublicKeys('agency-a')).keys).toHaveLength(1);
  });

  it('turning them off drops every key at once', async () => {
    harness = await startServiceHarness();
    await configure('standard', { asymmetricSignatures: true });
    await harness.webhooks.rotateSigningKey('agency-a');
    const off = await configure('standard', { asymmetricSignatures: false });
    expect(off).toMatchObject({ asymmetricSignatures: false, signingPublicKeys: [] });
    expect(await harness.webhooks.getPublicKeys('agency-a')).toEqual({ keys: [] });
    const [request] = requestsOf(await deliverOne());
    expect(standardSignatureEntries(request!).map((entry) => entry.version)).toEqual(['v1']);
  });
});

describe('410 Gone', () => {
  it("under 'standard' fails the attempt and disables the configuration (receiver_gone), reported once", async () => {
    const disabled: WebhookEndpointDisabledEvent[] = [];
    harness = await startServiceHarness({
      service: { hooks: { onEndpointDisabled: (event) => disabled.push(event) } },
    });
    await configure('standard');
    harness.receiver.respond(() => ({ status: 410 }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const delivery = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');

    expect(delivery.lastResponseCode).toBe(410);
    expect(harness.receiver.requests, 'no attempt after the 410').toHaveLength(1);
    const health = await harness.webhooks.getEndpointHealth('agency-a');
    expect(health).toMatchObject({ state: 'disabled', disabledReason: 'receiver_gone' });
    expect(await harness.webhooks.getConfig('agency-a')).toMatchObject({ enabled: false });
    expect(disabled).toEqual([
      expect.objectContaining({
        agencyId: 'agency-a',
        reason: 'receiver_gone',
        disabledAt: health.disabledAt,
      }),
    ]);
    // A PUT enables it again, as after any disable.
    await configure('standard');
    expect(await harness.webhooks.getEndpointHealth('agency-a')).toMatchObject({ disabledReason: null });
  });

  it('a test send that gets a 410 only reports it', async () => {
    harness = await startServiceHarness();
    await configure('standard');
    harness.receiver.respond(() => ({ status: 410 }));
    expect(await harness.webhooks.sendTest('agency-a')).toMatchObject({ success: false, statusCode: 410 });
    expect(await harness.webhooks.getConfig('agency-a')).toMatchObject({ enabled: true });
  });

  it("under 'both' disables too", async () => {
    harness = await startServiceHarness();
    await configure('both');
    harness.receiver.respond(() => ({ status: 410 }));
    await deliverOne('failed');
    expect(await harness.webhooks.getEndpointHealth('agency-a')).toMatchObject({
      state: 'disabled',
      disabledReason: 'receiver_gone',
    });
  });

  it("under 'service' is an ordinary failed attempt: retried, and the configuration stays enabled", async () => {
    harness = await startServiceHarness();
    await configure('service');
    harness.receiver.respond(() => ({ status: 410 }));
    const deliveryId = await deliverOne('failed');
    expect(
      harness.receiver.requests.filter((r) => r.headers['x-service-webhook-id'] === `whdel_${deliveryId}`),
    ).toHaveLength(5);
    expect(await harness.webhooks.getConfig('agency-a')).toMatchObject({ enabled: true });
    expect(await harness.webhooks.getEndpointHealth('agency-a')).toMatchObject({ disabledReason: null });
  });
});
