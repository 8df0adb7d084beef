import {
  createWebhookService,
  type DeliveryQueue,
  type WebhookService,
  type WebhookStore,
} from '@svc/webhooks-core';

/**
 * Keys from the environment, e.g. WEBHOOK_SECRET_KEYS="k2025:<base64>,k2026:<base64>" (each made with
 * `openssl rand -base64 32`) and WEBHOOK_SECRET_PRIMARY_KEY="k2026". Every process gets the same two.
 */
export function createSealedWebhooks(
  store: WebhookStore,
  queue: DeliveryQueue,
  env: Record<string, string | undefined> = process.env,
): WebhookService {
  const keys = Object.fromEntries(
    (env.WEBHOOK_SECRET_KEYS ?? '')
      .split(',')
      .filter((entry) => entry !== '')
      .map((entry) => entry.split(':', 2) as [string, string]),
  );
  return createWebhookService({
    store,
    queue,
    secretEncryption: { keys, primaryKeyId: env.WEBHOOK_SECRET_PRIMARY_KEY ?? '' },
  });
}

/**
 * Step 3 of a key rotation (docs/security.md), once every process runs with the new primary key:
 * re-seals every secret that is plaintext or under an older key. Safe to run again.
 */
export async function resealAllSecrets(webhooks: WebhookService): Promise<string> {
  const { examined, reencrypted } = await webhooks.reencryptSecrets({ pageSize: 500 });
  return `${reencrypted} of ${examined} signing secrets re-sealed under the primary key`;
}
