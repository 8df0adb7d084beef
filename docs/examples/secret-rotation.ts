import type { WebhookService } from '@svc/webhooks-core';
import { verifyWebhook } from '@svc/webhooks-verify';

/** Sender side: the old secret stops signing at once; the new one is shown only here. */
export async function rotateAgencySecret(webhooks: WebhookService, agencyId: string): Promise<string> {
  const { signingSecret } = await webhooks.rotateSecret(agencyId);
  return signingSecret;
}

/**
 * Receiver side, while a rotation is rolled out: accept either secret, newest
 * first. Drop the previous one as soon as the new one is deployed everywhere.
 */
export function verifyDuringRotation(
  rawBody: Uint8Array,
  header: string | undefined,
  secrets: { current: string; previous?: string },
) {
  const keys = secrets.previous ? [secrets.current, secrets.previous] : secrets.current;
  return verifyWebhook(rawBody, header, keys);
}
