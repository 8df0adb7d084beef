import { createHmac } from 'node:crypto';
import type { ReceivedRequest } from '@svc/test-support';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  canRunBrowser,
  expectNoAxeViolations,
  expectNoPageErrors,
  focused,
  hasFocus,
  openPortal,
  PORTAL_AGENCY,
  type PortalSession,
  saveScreenshot,
  waitUntil,
} from './browser-harness';

/** The header the service signs deliveries with (SIGNATURE_HEADER of @svc/webhooks-verify). */
const SIGNATURE_HEADER = 'x-service-signature';

/**
 * Whether the request's `t=…,v1=…` signature is the HMAC-SHA256 of `t.body` under `secret`: computed here
 * independently of the service's own signing code, as a receiver written from the docs would.
 */
function signedWith(request: ReceivedRequest, secret: string): boolean {
  const header = String(request.headers[SIGNATURE_HEADER] ?? '');
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const timestamp = parts.get('t');
  if (timestamp === undefined) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${request.rawBody}`).digest('hex');
  return parts.get('v1') === expected;
}

const fullSecret = (page: Page) => page.locator('svc-wh-endpoint-secret [data-secret="full"]');
const maskedSecret = (page: Page) => page.locator('svc-wh-endpoint-secret [data-secret="masked"]');
const healthBadge = (page: Page) => page.locator('svc-wh-endpoint-health [data-state]');
const testResult = (page: Page) => page.locator('svc-wh-endpoint-test-send .result');
/** The save error shown under the URL field. */
const urlAlert = (page: Page) => page.locator('svc-wh-endpoint-settings .url-field [role="alert"]');
const eventCheckbox = (page: Page, eventType: string) =>
  page.getByRole('checkbox', { name: new RegExp(`^${eventType} `) });

/** The error inside the "Events to receive" group. */
const eventsAlert = (page: Page) =>
  page.getByRole('group', { name: 'Events to receive' }).locator('[role="alert"]');
const firstEventCheckbox = (page: Page) =>
  page.locator('svc-wh-endpoint-settings input[name="eventType"]').first();

/** Reopens the page after `session.configure`, and waits for the stored settings to show. */
async function reloadConfigured(session: PortalSession): Promise<void> {
  await session.reload();
  await session.page.getByRole('heading', { name: 'Endpoint settings' }).waitFor();
}

/** The health card's badge and the sentence after it, whitespace collapsed. */
async function healthLine(page: Page): Promise<string> {
  const line = await page.locator('svc-wh-endpoint-health [role="status"]').textContent();
  return (line ?? '').replace(/\s+/g, ' ').trim();
}

function waitForHealth(session: PortalSession, state: string): Promise<void> {
  return waitUntil(
    `the endpoint's health to become ${state}`,
    async () => (await session.service.getEndpointHealth(PORTAL_AGENCY)).state === state,
  );
}

describe.skipIf(!canRunBrowser)('Endpoint tab in Chromium', () => {
  let session: PortalSession | null = null;

  afterEach(async () => {
    await session?.close();
    session = null;
  });

  it('creates the endpoint, shows its secret once with Copy, then only masked; refuses a URL the policy refuses', async () => {
    session = await openPortal();
    const { page, receiver, service } = session;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.baseUrl });

    await page.getByRole('heading', { name: 'No endpoint yet' }).waitFor();
    await eventCheckbox(page, 'job_created').waitFor();
    expect(await page.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    await expect(service.getConfig(PORTAL_AGENCY)).rejects.toThrow();
    await expectNoAxeViolations(page, 'endpoint empty state');

    // A URL the policy refuses creates nothing: the reason is shown in words next to the field.
    await eventCheckbox(page, 'job_created').check();
    await page.getByLabel('Webhook URL').fill('http://example.com/hook');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await urlAlert(page).waitFor();
    expect(await urlAlert(page).textContent()).toContain('must use https');
    await expect(service.getConfig(PORTAL_AGENCY)).rejects.toThrow();

    await page.getByLabel('Webhook URL').fill(receiver.url);
    await eventCheckbox(page, 'job_cancelled').check();
    await expectNoAxeViolations(page, 'endpoint settings filled in');
    await page.getByRole('button', { name: 'Create endpoint' }).click();

    await fullSecret(page).waitFor();
    const secret = (await fullSecret(page).textContent())?.trim() ?? '';
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    await page.getByText("Copy it now: it won't be shown again.").waitFor();
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await expectNoAxeViolations(page, 'endpoint secret shown');

    const stored = await service.getConfig(PORTAL_AGENCY);
    expect(stored.webhookUrl).toBe(receiver.url);
    expect([...stored.subscribedEventTypes].sort()).toEqual(['job_cancelled', 'job_created']);
    expect(stored.enabled).toBe(true);
    expect(stored.signingSecret.endsWith(secret.slice(-4))).toBe(true);
    // The secret shown is the one that signs: a test send through the service verifies with it.
    await service.sendTest(PORTAL_AGENCY);
    expect(signedWith(receiver.requests.at(-1) as ReceivedRequest, secret)).toBe(true);

    await page.getByLabel('Webhook URL').fill('http://example.com/hook');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await urlAlert(page).waitFor();
    expect(await urlAlert(page).textContent()).toContain('must use https');
    expect(await page.getByLabel('Webhook URL').getAttribute('aria-invalid')).toBe('true');
    expect((await service.getConfig(PORTAL_AGENCY)).webhookUrl).toBe(receiver.url);

    await session.reload();
    await maskedSecret(page).waitFor();
    const masked = (await maskedSecret(page).textContent())?.trim() ?? '';
    expect(masked).toBe(stored.signingSecret);
    expect(masked).toContain('********');
    expect(await fullSecret(page).count()).toBe(0);
    expect(await page.getByLabel('Webhook URL').inputValue()).toBe(receiver.url);
    expect(await eventCheckbox(page, 'job_created').isChecked()).toBe(true);
  });

  it('rotates the secret only after confirmation; Cancel and Escape change nothing', async () => {
    session = await openPortal();
    const { page, receiver, service } = session;
    const { signingSecret: original } = await session.configure();
    await reloadConfigured(session);
    const rotate = page.getByRole('button', { name: 'Rotate secret' });

    await rotate.click();
    await page.getByText('The current secret stops signing at once').waitFor();
    expect((await focused(page))?.className).toContain('confirm');
    await page.keyboard.press('Escape');
    await rotate.waitFor();
    expect((await focused(page))?.text).toBe('Rotate secret');

    await rotate.click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await rotate.waitFor();
    expect(await fullSecret(page).count()).toBe(0);
    await service.sendTest(PORTAL_AGENCY);
    expect(signedWith(receiver.requests.at(-1) as ReceivedRequest, original)).toBe(true);

    await rotate.click();
    await page.getByRole('button', { name: 'Confirm rotation' }).click();
    await fullSecret(page).waitFor();
    const rotated = (await fullSecret(page).textContent())?.trim() ?? '';
    expect(rotated).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated).not.toBe(original);
    // The new secret's card has the focus, so its warning is read first.
    expect((await focused(page))?.className).toBe('once');
    expect((await service.getConfig(PORTAL_AGENCY)).signingSecret.endsWith(rotated.slice(-4))).toBe(true);
    await service.sendTest(PORTAL_AGENCY);
    const signed = receiver.requests.at(-1) as ReceivedRequest;
    expect(signedWith(signed, rotated)).toBe(true);
    expect(signedWith(signed, original)).toBe(false);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    await maskedSecret(page).waitFor();
    expect((await maskedSecret(page).textContent())?.trim()).toBe(
      (await service.getConfig(PORTAL_AGENCY)).signingSecret,
    );
  });

  it('sends a signed test event and shows the answer; health turns failing after failed deliveries', async () => {
    session = await openPortal();
    const { page, receiver } = session;
    const { signingSecret } = await session.configure({
      subscribedEventTypes: ['job_created', 'job_cancelled'],
    });
    await reloadConfigured(session);
    await healthBadge(page).waitFor();

    const before = receiver.requests.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await testResult(page).getByText('Success').waitFor();
    // The button was disabled while sending; the receiver's answer has the focus, not <body>.
    await expect.poll(async () => (await focused(page))?.className).toBe('result');
    expect(await testResult(page).textContent()).toContain('HTTP status 200');
    expect(receiver.requests.length).toBe(before + 1);
    const test = receiver.requests.at(-1) as ReceivedRequest;
    expect(signedWith(test, signingSecret)).toBe(true);
    expect(JSON.parse(test.rawBody).eventType).toBe('webhook_test');
    await expectNoAxeViolations(page, 'endpoint test result');
    await saveScreenshot(page, 'endpoint-desktop');

    receiver.respond(() => ({ status: 500, body: 'receiver is down' }));
    await page.getByLabel('Event to send').selectOption('job_created');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await testResult(page).getByText('Failed').waitFor();
    expect(await testResult(page).textContent()).toContain('HTTP status 500');
    expect(JSON.parse((receiver.requests.at(-1) as ReceivedRequest).rawBody).eventType).toBe('job_created');

    expect(await session.emit('job_created', 'job-health-1')).not.toBeNull();
    await waitForHealth(session, 'failing');
    await page.getByRole('button', { name: 'Refresh health' }).click();
    await page.locator('svc-wh-endpoint-health [data-state="failing"]').waitFor();
    expect(await healthBadge(page).textContent()).toBe('Failing');
    expect(await page.locator('svc-wh-endpoint-health [role="status"]').textContent()).toMatch(
      /went without a 2xx answer/,
    );
  });

  it('refuses to save an enabled endpoint with no event type, beside the group, and focuses it', async () => {
    session = await openPortal();
    const { page, receiver, service } = session;
    await page.getByRole('heading', { name: 'No endpoint yet' }).waitFor();
    await eventCheckbox(page, 'job_created').waitFor();
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Create endpoint' }).click();

    await eventsAlert(page).waitFor();
    expect(await eventsAlert(page).textContent()).toContain('Choose at least one event to receive');
    const group = page.getByRole('group', { name: 'Events to receive' });
    expect(await group.getAttribute('aria-describedby')).toBe(await eventsAlert(page).getAttribute('id'));
    await expect.poll(() => hasFocus(firstEventCheckbox(page))).toBe(true);
    await expect(service.getConfig(PORTAL_AGENCY)).rejects.toThrow();
    await expectNoAxeViolations(page, 'endpoint without event types');
    await saveScreenshot(page, 'endpoint-no-events-desktop');

    // Choosing one clears the error; the new secret's card then has the focus the disabled button dropped.
    await eventCheckbox(page, 'job_created').check();
    expect(await eventsAlert(page).count()).toBe(0);
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await fullSecret(page).waitFor();
    await expect.poll(async () => (await focused(page))?.className).toBe('once');
    await page.getByRole('button', { name: 'I have stored it' }).click();

    await eventCheckbox(page, 'job_created').uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await eventsAlert(page).waitFor();
    await expect.poll(() => hasFocus(firstEventCheckbox(page))).toBe(true);
    expect((await service.getConfig(PORTAL_AGENCY)).subscribedEventTypes).toEqual(['job_created']);

    // A disabled endpoint may have none: the API takes it, and so does the form.
    await page.getByLabel('Enabled: send deliveries to this URL').uncheck();
    expect(await eventsAlert(page).count()).toBe(0);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => focused(page)).toMatchObject({ id: 'saved-notice', text: 'Changes saved.' });
    const stored = await service.getConfig(PORTAL_AGENCY);
    expect(stored.enabled).toBe(false);
    expect(stored.subscribedEventTypes).toEqual([]);
    expectNoPageErrors(session, 'endpoint settings');
  });

  it('fits a phone screen and says when test sends are rate limited', async () => {
    session = await openPortal({ viewport: 'phone' });
    const { page } = session;
    await session.configure();
    await reloadConfigured(session);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await testResult(page).getByText('Success').waitFor();
    await healthBadge(page).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await saveScreenshot(page, 'endpoint-phone');

    // The agency's test sends are limited (10 in a burst): spend the rest, then the page says so and sends nothing.
    const limit = 10;
    for (let sent = 1; sent < limit; sent++) await session.service.sendTest(PORTAL_AGENCY);
    const before = session.receiver.requests.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    const alert = page.locator('svc-wh-endpoint-test-send [role="alert"]');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Too many test sends');
    await expect.poll(async () => (await focused(page))?.id).toBe('test-error');
    expect(session.receiver.requests.length).toBe(before);
  });

  it('says "No delivery yet" until a delivery got through, then "Healthy"', async () => {
    session = await openPortal();
    const { page } = session;
    await session.configure({ subscribedEventTypes: ['job_created'] });
    await reloadConfigured(session);
    await healthBadge(page).waitFor();
    // The API's state stays in data-state; the words and the colour claim nothing yet.
    expect(await healthBadge(page).getAttribute('data-state')).toBe('healthy');
    expect(await healthBadge(page).getAttribute('class')).toBe('badge idle');
    expect(await healthLine(page)).toMatch(
      /^No delivery yet No delivery has got a 2xx answer from this endpoint yet/,
    );
    await expectNoAxeViolations(page, 'health before any delivery');
    await saveScreenshot(page, 'health-no-delivery-desktop');

    await session.emit('job_created', 'job-first');
    await session.settle(1);
    await page.getByRole('button', { name: 'Refresh health' }).click();
    await page.locator('svc-wh-endpoint-health .badge.healthy').waitFor();
    expect(await healthBadge(page).textContent()).toBe('Healthy');
    expect(await healthLine(page)).toContain('Deliveries get through');
  });

  it('says failed deliveries can be replayed, not that they are retried, once every one failed for good', async () => {
    // A breaker that never opens here: the five attempts run out without a pause.
    session = await openPortal({ circuitBreaker: { failureThreshold: 100 } });
    const { page, receiver } = session;
    await session.configure({ subscribedEventTypes: ['job_created'] });
    receiver.respond(() => ({ status: 500 }));
    await session.emit('job_created', 'job-lost');
    expect((await session.settle(1)).map((delivery) => delivery.status)).toEqual(['failed']);
    await waitForHealth(session, 'failing');
    await reloadConfigured(session);
    await page.locator('svc-wh-endpoint-health [data-state="failing"]').waitFor();
    const line = await healthLine(page);
    expect(line).toContain('No delivery is waiting for a retry: replay the failed ones from Deliveries');
    expect(line).not.toContain('retried');
    await expectNoAxeViolations(page, 'health failing, nothing pending');
    await saveScreenshot(page, 'health-failed-for-good-desktop');
  });

  it('says pending deliveries are retried while one waits for its retry', async () => {
    // The first attempt fails and the retry is ten minutes away: the delivery stays pending meanwhile.
    session = await openPortal({
      circuitBreaker: { failureThreshold: 100 },
      retry: { schedule: [600_000], jitterRatio: 0 },
    });
    const { page, receiver, service } = session;
    await session.configure({ subscribedEventTypes: ['job_created'] });
    receiver.respond(() => ({ status: 500 }));
    const id = (await session.emit('job_created', 'job-waiting')) as string;
    await waitForHealth(session, 'failing');
    expect((await service.getDelivery(PORTAL_AGENCY, id)).status).toBe('pending');
    await reloadConfigured(session);
    await page.locator('svc-wh-endpoint-health [data-state="failing"]').waitFor();
    expect(await healthLine(page)).toContain('Pending deliveries are retried on their schedule.');
  });
});
