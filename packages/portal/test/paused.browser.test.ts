import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  canRunBrowser,
  expectNoAxeViolations,
  openPortal,
  PORTAL_AGENCY,
  type PortalSession,
  saveScreenshot,
  waitUntil,
} from './browser-harness';

const WAIT = { timeout: 10_000 };
const health = (page: Page) => page.locator('svc-wh-endpoint-health');
const detail = (page: Page) => page.locator('svc-wh-delivery-detail');

describe.skipIf(!canRunBrowser)('a paused endpoint in Chromium', () => {
  let session: PortalSession | null = null;

  afterEach(async () => {
    await session?.close();
    session = null;
  });

  it('health and the held delivery say "paused until"; a successful test send releases it', async () => {
    // Two failures in a row open the breaker for a minute: long enough to look at, and to see it released.
    session = await openPortal({
      circuitBreaker: { failureThreshold: 2, openMs: 60_000, maxOpenMs: 60_000 },
    });
    const { page, receiver, service } = session;
    await session.configure({ subscribedEventTypes: ['job_created'] });
    receiver.respond(() => ({ status: 503, body: 'down for maintenance' }));
    await session.emit('job_created', 'job-paused-1');
    await waitUntil('the breaker to open', async () => {
      return (await service.getEndpointHealth(PORTAL_AGENCY)).pausedUntil !== null;
    });
    const held = (await session.emit('job_created', 'job-paused-2')) as string;
    const { pausedUntil } = await service.getEndpointHealth(PORTAL_AGENCY);

    await session.reload();
    await health(page).getByText('Paused until').first().waitFor(WAIT);
    expect(await health(page).locator('[role="status"]').textContent()).toMatch(/^\s*Failing\s+Paused until/);
    expect(await health(page).locator('dd[data-paused-until]').getAttribute('data-paused-until')).toBe(
      String(pausedUntil),
    );
    await expectNoAxeViolations(page, 'paused endpoint health');
    await saveScreenshot(page, 'paused-health-desktop');

    await page.getByRole('tab', { name: 'Deliveries' }).click();
    await page.locator(`tr[data-delivery-row="${held}"]`).getByRole('button', { name: /View/ }).click();
    const paused = detail(page).locator('.paused');
    await paused.waitFor(WAIT);
    expect(await paused.getAttribute('data-paused-until')).toBe(String(pausedUntil));
    expect(await paused.textContent()).toMatch(
      /Endpoint paused until .+: the receiver failed too often in a row/,
    );
    await expectNoAxeViolations(page, 'held delivery detail');
    await saveScreenshot(page, 'paused-delivery-desktop');

    receiver.respond(() => ({ status: 200 }));
    await page.getByRole('tab', { name: 'Endpoint' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.locator('svc-wh-endpoint-test-send .result').getByText('Success').waitFor(WAIT);
    // Long before the minute's pause would have ended.
    await waitUntil('the held delivery to go', async () => {
      return (await service.getDelivery(PORTAL_AGENCY, held)).status === 'success';
    });
    expect((await service.getEndpointHealth(PORTAL_AGENCY)).pausedUntil).toBeNull();
  });
});
