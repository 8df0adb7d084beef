import { type InvalidUrlReason, InvalidWebhookUrlError, type WebhookService } from '@svc/webhooks-core';

const EXPLANATIONS: Record<InvalidUrlReason, string> = {
  invalid_url: 'That is not a valid URL.',
  not_https: 'The URL must start with https://.',
  unresolvable_host: 'We could not find that host name in DNS.',
  private_address: 'The host name points to a private or internal network address.',
};

/** Saves an agency's webhook URL, turning a refused URL into a message for the settings page. */
export async function saveWebhookUrl(
  webhooks: WebhookService,
  agencyId: string,
  webhookUrl: string,
): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    await webhooks.putConfig(agencyId, { webhookUrl, enabled: true, subscribedEventTypes: ['job_created'] });
    return { ok: true };
  } catch (error) {
    if (error instanceof InvalidWebhookUrlError) return { ok: false, message: EXPLANATIONS[error.reason] };
    throw error;
  }
}
