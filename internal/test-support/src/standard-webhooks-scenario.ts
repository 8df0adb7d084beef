import { createHmac } from 'node:crypto';
import type { PutConfigBody, WebhookStore } from '@svc/webhooks-core';
import { expect } from 'vitest';
import type { ReceivedRequest } from './receiver';
import { jobCancelled, type ServiceHarness } from './service-harness';
import { asymmetricSignersOf, standardSignatureEntries, verifyStandardRequest } from './standard-webhooks';

/**
 * The interop bar on a real backend, end to end through the harness's HTTPS receiver: an agency on
 * `'standard'` and one on `'both'` with `v1a`, each delivery checked by the unmodified `standardwebhooks`
 * package, `v1a` by node:crypto against the JWKS, `X-Service-Signature` by a plain HMAC; then a key
 * rotation, which goes through the store's `setSigningKeys` (and a linked cache where there is one), signs
 * the next attempt with both keys, new first. `store` is the backend's store, read back to check what it
 * persisted.
 *
 * @example
 * ```ts
 * const harness = await startServiceHarness({ store: () => webhooks.store, queue: () => webhooks.queue });
 * await runStandardWebhooksScenario(harness, webhooks.store);
 * ```
 */
export async function runStandardWebhooksScenario(
  harness: ServiceHarness,
  store: WebhookStore,
): Promise<void> {
  const put = (agencyId: string, body: Partial<PutConfigBody>) =>
    harness.webhooks.putConfig(agencyId, {
      webhookUrl: harness.receiver.urlFor(`/${agencyId}`),
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
      ...body,
    });
  const deliver = async (agencyId: string, jobNumber: number): Promise<ReceivedRequest> => {
    const emitted = await harness.webhooks.emit(jobCancelled(agencyId, jobNumber));
    const deliveryId = emitted?.deliveryId as string;
    await harness.waitForStatus(agencyId, deliveryId, 'success');
    const request = harness.receiver.requests.find((r) => r.headers['webhook-id'] === `whdel_${deliveryId}`);
    if (!request) throw new Error(`No request carried webhook-id whdel_${deliveryId}.`);
    return request;
  };

  const standard = await put('agency-standard', { signatureScheme: 'standard' });
  const both = await put('agency-both', { signatureScheme: 'both', asymmetricSignatures: true });
  expect(standard.standardSigningSecret).toMatch(/^whsec_/);
  expect(both.standardSigningSecret).toMatch(/^whsec_/);
  expect(await store.getConfig('agency-both')).toMatchObject({
    signatureScheme: 'both',
    signingKeys: [{ kid: both.signingPublicKeys[0]?.kid, expiresAt: null }],
  });

  const fromStandard = await deliver('agency-standard', 1);
  expect(verifyStandardRequest(fromStandard, standard.standardSigningSecret as string)).toMatchObject({
    eventType: 'job_cancelled',
  });
  expect(standardSignatureEntries(fromStandard).map((entry) => entry.version)).toEqual(['v1']);
  expect(fromStandard.headers['x-service-signature']).toBeUndefined();

  const fromBoth = await deliver('agency-both', 2);
  expect(verifyStandardRequest(fromBoth, both.standardSigningSecret as string)).toMatchObject({
    eventType: 'job_cancelled',
  });
  expect(specSignatureMatches(fromBoth, both.signingSecret), 'X-Service-Signature').toBe(true);
  const jwks = await harness.webhooks.getPublicKeys('agency-both');
  expect(jwks.keys.map((key) => key.kid)).toEqual([both.signingPublicKeys[0]?.kid]);
  expect(asymmetricSignersOf(fromBoth, jwks.keys), 'v1a against the JWKS').toEqual([jwks.keys[0]?.kid]);

  const { signingPublicKeys } = await harness.webhooks.rotateSigningKey('agency-both', { overlapMs: 60_000 });
  const rotated = await harness.webhooks.getPublicKeys('agency-both');
  expect(rotated.keys.map((key) => key.kid)).toEqual(signingPublicKeys.map((key) => key.kid));
  const afterRotation = await deliver('agency-both', 3);
  expect(verifyStandardRequest(afterRotation, both.standardSigningSecret as string)).toBeTruthy();
  expect(asymmetricSignersOf(afterRotation, rotated.keys)).toEqual(rotated.keys.map((key) => key.kid));
}

/** Whether the request's `X-Service-Signature` is the spec's HMAC of `<t>.<raw body>` under the hex secret. */
function specSignatureMatches(request: ReceivedRequest, hexSecret: string): boolean {
  const header = String(request.headers['x-service-signature']);
  const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
  const v1 = /(?:^|,)v1=([0-9a-f]{64})/.exec(header)?.[1];
  return (
    t !== undefined && v1 === createHmac('sha256', hexSecret).update(`${t}.${request.rawBody}`).digest('hex')
  );
}
