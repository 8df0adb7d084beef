import { randomUUID } from 'node:crypto';
import {
  type DeliveryQueue,
  generateSigningSecret,
  type SecretEncryptionOptions,
  type WebhookService,
  type WebhookServiceOptions,
  type WebhookStore,
} from '@svc/webhooks-core';
import { verifyWebhook } from '@svc/webhooks-verify';
import { expect } from 'vitest';
import { jobCancelled, type ServiceHarness } from './service-harness';

/** One test's backend, as {@link describeSecretsAtRest} needs it. */
export interface SecretsAtRestFixture {
  /** An empty store of the backend (a fresh schema or key prefix). */
  store: WebhookStore;
  /** The backend's queue for the harness's worker; a memory queue when absent. */
  queue?: DeliveryQueue;
  /** Every value the backend holds for this store, as text: each row cast to text, each Redis value. */
  dump(): Promise<string>;
  /** Makes every later configuration write for `agencyId` fail in the backend itself (a constraint, a key of the wrong type). */
  breakConfigWrites(agencyId: string): Promise<void>;
  /** Closes what `open` opened and removes its data. */
  teardown(): Promise<void>;
}

/** Two keys of the suite, as base64 strings. */
export interface SuiteKeys {
  k1: string;
  k2: string;
}

/** What the cases of the suite share. */
export interface SecretsAtRestContext {
  keys: SuiteKeys;
  fixture(): SecretsAtRestFixture;
  /** A harness (service, worker, receiver) on the fixture's store and queue; closed after the test. */
  harness(encryption?: SecretEncryptionOptions): Promise<ServiceHarness>;
  /**
   * Another service, with no worker, closed after the test: on the fixture's store and a memory
   * queue, private networks allowed, unless `overrides` says otherwise.
   */
  service(encryption?: SecretEncryptionOptions, overrides?: Partial<WebhookServiceOptions>): WebhookService;
}

/** `secretEncryption` with only `keyId`, primary. */
export function onlyKey(keys: SuiteKeys, keyId: keyof SuiteKeys): SecretEncryptionOptions {
  return { keys: { [keyId]: keys[keyId] }, primaryKeyId: keyId };
}

/** Writes a configuration straight to the store, as a release before secret encryption did: the secret in plaintext. */
export async function writeLegacyConfig(
  store: WebhookStore,
  agencyId: string,
  webhookUrl: string,
): Promise<string> {
  const secret = generateSigningSecret();
  await store.upsertConfig({
    agencyId,
    webhookUrl,
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
    now: Date.now(),
    newId: randomUUID(),
    newSigningSecret: secret,
  });
  return secret;
}

/** Emits for the agency, waits for the delivery, and checks that its signature verifies with `secret`. */
export async function expectDeliveredWith(
  harness: ServiceHarness,
  agencyId: string,
  secret: string,
): Promise<void> {
  const emitted = await harness.webhooks.emit(jobCancelled(agencyId));
  const webhookId = `whdel_${emitted?.deliveryId}`;
  await harness.waitForStatus(agencyId, emitted?.deliveryId as string, 'success');
  const request = harness.receiver.requests.find((r) => r.headers['x-service-webhook-id'] === webhookId);
  const header = request?.headers['x-service-signature'] as string;
  expect(verifyWebhook(request?.rawBody ?? '', header, secret).webhookId, 'signature').toBe(webhookId);
}
