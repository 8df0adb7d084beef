import type { WebhookEndpointDisabledEvent, WebhookHooks } from '@svc/webhooks-core';

/** An e-mail as the host's mailer takes it. */
export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
}

/** The host's mailer (SMTP, a transactional e-mail API, …). */
export type SendEmail = (email: OutgoingEmail) => Promise<void>;

/** Options of {@link createEndpointDisabledNotifier}. */
export interface EndpointDisabledNotifierOptions {
  /** Who hears about the agency's webhooks (its owner's address, from the host's own records); null: nobody. */
  contactFor(agencyId: string): Promise<string | null>;
  sendEmail: SendEmail;
  /** Where the agency manages its webhook settings, linked from the e-mail. */
  settingsUrl: string;
  /** Where a failed notification is reported. @default console.error */
  onError?: (error: unknown) => void;
}

/** The e-mail telling an agency its endpoint was disabled: what happened, since when, and how to resume. */
export function composeEndpointDisabledEmail(
  event: WebhookEndpointDisabledEvent,
  settingsUrl: string,
): Pick<OutgoingEmail, 'subject' | 'text'> {
  const since = event.failingSince === null ? 'for several days' : `since ${iso(event.failingSince)}`;
  return {
    subject: 'Your webhook endpoint has been disabled',
    text: [
      `Every delivery to ${event.webhookUrl} has failed ${since}, so we disabled the endpoint at ${iso(event.disabledAt)}.`,
      'No new events are recorded for it while it is disabled, and deliveries still waiting were not sent.',
      '',
      'To resume:',
      '1. Make sure the URL answers our POST requests with a 2xx status (send a test event to check).',
      `2. Enable the endpoint again in your webhook settings: ${settingsUrl}`,
      '3. Replay the failed deliveries you need from the delivery log.',
    ].join('\n'),
  };
}

/**
 * The `onEndpointDisabled` hook that e-mails the agency. Hooks are synchronous and
 * must not throw, so the lookup and the send run after it returns, and a failure is
 * reported rather than thrown.
 */
export function createEndpointDisabledNotifier(options: EndpointDisabledNotifierOptions): WebhookHooks {
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  return {
    onEndpointDisabled: (event) => {
      notify(options, event).catch(onError);
    },
  };
}

async function notify(
  options: EndpointDisabledNotifierOptions,
  event: WebhookEndpointDisabledEvent,
): Promise<void> {
  const to = await options.contactFor(event.agencyId);
  if (to === null) return;
  await options.sendEmail({ to, ...composeEndpointDisabledEmail(event, options.settingsUrl) });
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
