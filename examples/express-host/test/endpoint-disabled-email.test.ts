import type { WebhookEndpointDisabledEvent } from '@svc/webhooks-core';
import { describe, expect, it } from 'vitest';
import {
  composeEndpointDisabledEmail,
  createEndpointDisabledNotifier,
  type OutgoingEmail,
} from '../src/endpoint-disabled-email';

const EVENT: WebhookEndpointDisabledEvent = {
  agencyId: 'agency-1',
  reason: 'auto_disabled_failing',
  webhookUrl: 'https://hooks.agency.example/in',
  failingSince: Date.UTC(2026, 0, 1),
  disabledAt: Date.UTC(2026, 0, 6),
};

const SETTINGS = 'https://app.example.com/settings/webhooks';

async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
}

describe('the endpoint-disabled e-mail', () => {
  it('names the URL, when it started failing, when it was disabled, and how to resume', () => {
    const email = composeEndpointDisabledEmail(EVENT, SETTINGS);
    expect(email.subject).toBe('Your webhook endpoint has been disabled');
    expect(email.text).toContain('https://hooks.agency.example/in');
    expect(email.text).toContain('since 2026-01-01T00:00:00.000Z');
    expect(email.text).toContain('at 2026-01-06T00:00:00.000Z');
    expect(email.text).toContain(`Enable the endpoint again in your webhook settings: ${SETTINGS}`);
  });

  it('the hook looks the agency’s contact up and hands the e-mail to the host’s mailer', async () => {
    const sent: OutgoingEmail[] = [];
    const hooks = createEndpointDisabledNotifier({
      contactFor: async (agencyId) => (agencyId === 'agency-1' ? 'owner@agency.example' : null),
      sendEmail: async (email) => {
        sent.push(email);
      },
      settingsUrl: SETTINGS,
    });
    hooks.onEndpointDisabled?.(EVENT);
    hooks.onEndpointDisabled?.({ ...EVENT, agencyId: 'agency-without-contact' });
    await settle();
    expect(sent).toEqual([{ to: 'owner@agency.example', ...composeEndpointDisabledEmail(EVENT, SETTINGS) }]);
  });

  it('a failing mailer is reported, never thrown into the worker', async () => {
    const errors: unknown[] = [];
    const hooks = createEndpointDisabledNotifier({
      contactFor: async () => 'owner@agency.example',
      sendEmail: async () => {
        throw new Error('SMTP down');
      },
      settingsUrl: SETTINGS,
      onError: (error) => errors.push(error),
    });
    expect(() => hooks.onEndpointDisabled?.(EVENT)).not.toThrow();
    await settle();
    expect(errors).toEqual([new Error('SMTP down')]);
  });
});
