import {
  createWebhookService,
  type DeliveryQueue,
  type WebhookHooks,
  type WebhookStore,
} from '@svc/webhooks-core';

/** How the host reaches an agency: an e-mail to its owner, an in-app notice. */
export type TellAgency = (agencyId: string, subject: string, text: string) => Promise<void>;

/**
 * Hooks that tell an agency when its endpoint starts failing and when it is
 * disabled. Hooks run synchronously in the worker and must not throw, so the
 * message is handed off and a failure to send it is only logged.
 */
export function agencyNotifications(tellAgency: TellAgency): WebhookHooks {
  const send = (agencyId: string, subject: string, text: string) =>
    tellAgency(agencyId, subject, text).catch((error: unknown) => console.error(error));
  return {
    onEndpointHealthChange({ agencyId, previous, current }) {
      if (previous === 'healthy' && current === 'failing')
        send(agencyId, 'Webhook deliveries are failing', 'Your endpoint did not accept our last delivery.');
    },
    onEndpointDisabled({ agencyId, webhookUrl, failingSince, disabledAt }) {
      const since = new Date(failingSince ?? disabledAt).toISOString();
      send(
        agencyId,
        'Webhook endpoint disabled',
        `Every delivery to ${webhookUrl} has failed since ${since}, so it was disabled. ` +
          'Fix the endpoint, then enable it again in your webhook settings and replay what you missed.',
      );
    },
  };
}

/** A service that disables an endpoint after 3 days of failure (instead of 5) and tells the agency. */
export function createNotifyingWebhooks(store: WebhookStore, queue: DeliveryQueue, tellAgency: TellAgency) {
  return createWebhookService({
    store,
    queue,
    autoDisable: { afterMs: 3 * 24 * 60 * 60 * 1000 },
    hooks: agencyNotifications(tellAgency),
  });
}
