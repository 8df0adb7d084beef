import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canRunBrowser,
  expectNoAxeViolations,
  openPortal,
  PORTAL_AGENCY,
  type PortalSession,
  saveScreenshot,
} from './browser-harness';

/** How long a page change may take on a busy machine. */
const WAIT = { timeout: 10_000 };

function eventTypeOf(rawBody: string): string {
  return (JSON.parse(rawBody) as { eventType: string }).eventType;
}

const form = (page: Page) => page.locator('svc-wh-bulk-recovery');
const progress = (page: Page) => page.locator('svc-wh-bulk-recovery-progress');

async function count(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Count failed deliveries' }).click();
  const result = form(page).locator('.count p');
  await result.waitFor(WAIT);
  return ((await result.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

describe.skipIf(!canRunBrowser)('bulk recovery in Chromium', () => {
  let session: PortalSession;
  let cancelledIds: string[];

  beforeAll(async () => {
    session = await openPortal();
    await session.configure({ subscribedEventTypes: ['job_created', 'job_cancelled'] });
    session.receiver.respond((request) =>
      eventTypeOf(request.rawBody) === 'job_cancelled' ? { status: 500 } : { status: 204 },
    );
    cancelledIds = [];
    for (const entityId of ['job-r1', 'job-r2']) {
      cancelledIds.push((await session.emit('job_cancelled', entityId)) as string);
    }
    for (const entityId of ['job-ok1', 'job-ok2']) await session.emit('job_created', entityId);
    // Ten failures in a row open the endpoint's circuit breaker, whose deferrals make this take seconds.
    const settled = await session.settle(4);
    expect(
      settled
        .filter((delivery) => delivery.status === 'failed')
        .map((delivery) => delivery.id)
        .sort(),
    ).toEqual([...cancelledIds].sort());
    await session.page.getByRole('tab', { name: 'Recovery' }).click();
  });

  afterAll(async () => {
    await session?.close();
  });

  it('counts the failed deliveries of the window, per event type, and explains a bad window', async () => {
    const { page } = session;
    const since = page.getByLabel('Created from');
    const defaultSince = await since.inputValue();
    // The default window starts a day ago (to the minute).
    expect(Math.abs(new Date(defaultSince).getTime() - (Date.now() - 86_400_000))).toBeLessThan(120_000);

    expect(await count(page)).toBe('2 failed deliveries match.');
    await expectNoAxeViolations(page, 'recovery form');

    await page.getByRole('checkbox', { name: 'job_created' }).check();
    expect(await count(page)).toBe('0 failed deliveries match.');
    expect(await page.getByRole('button', { name: 'Replay 0 deliveries' }).isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: 'job_cancelled' }).check();
    expect(await count(page)).toBe('2 failed deliveries match.');
    await page.getByRole('checkbox', { name: 'job_created' }).uncheck();
    await page.getByRole('checkbox', { name: 'job_cancelled' }).uncheck();

    await since.fill('');
    await page.getByRole('button', { name: 'Count failed deliveries' }).click();
    await form(page).getByRole('alert').getByText('Choose the start of the window').waitFor(WAIT);
    await page.getByLabel('Created before').fill(defaultSince);
    await since.fill(defaultSince.replace(/^(\d{4})/, (year) => String(Number(year) + 1)));
    await page.getByRole('button', { name: 'Count failed deliveries' }).click();
    await form(page)
      .getByRole('alert')
      .getByText('The start of the window must be before its end.')
      .waitFor(WAIT);
    await page.getByLabel('Created before').fill('');
    await since.fill(defaultSince);
  });

  it('replays every failed delivery of the window and follows the progress to the end', async () => {
    const { page, receiver } = session;
    receiver.respond(() => ({ status: 204 }));
    const before = receiver.requests.length;
    expect(await count(page)).toBe('2 failed deliveries match.');
    await page.getByRole('button', { name: 'Replay 2 deliveries' }).click();

    await progress(page).locator('.badge', { hasText: 'Completed' }).waitFor(WAIT);
    await progress(page).getByText('Replayed 2 of 2').waitFor(WAIT);
    const bar = progress(page).getByRole('progressbar', { name: 'Deliveries replayed' });
    expect(
      await bar.evaluate((element) => [
        (element as HTMLProgressElement).value,
        (element as HTMLProgressElement).max,
      ]),
    ).toEqual([2, 2]);
    await progress(page).getByRole('status').getByText('Recovery completed: 2 of 2 replayed.').waitFor(WAIT);

    // The replays reach the receiver, and each delivery's last attempt says a recovery asked for it.
    const requests = await receiver.waitForRequests(before + 2, 10_000);
    expect(requests.slice(before).map((request) => eventTypeOf(request.rawBody))).toEqual([
      'job_cancelled',
      'job_cancelled',
    ]);
    await session.settle(4);
    for (const id of cancelledIds) {
      expect((await session.service.getDelivery(PORTAL_AGENCY, id)).status).toBe('success');
      const { attempts } = await session.service.listAttempts(PORTAL_AGENCY, id);
      expect(attempts.at(-1)?.trigger).toBe('recovery');
    }
    await expectNoAxeViolations(page, 'recovery progress');
    await saveScreenshot(page, 'recovery-desktop');
  });
});

describe.skipIf(!canRunBrowser)('a recovery that is still running, in Chromium', () => {
  let session: PortalSession;

  beforeAll(async () => {
    // No recovery walker in this host: a recovery stays running until it is cancelled, as a long one does.
    session = await openPortal({ worker: { bulkRecovery: false } });
    await session.configure({ subscribedEventTypes: ['job_created', 'job_cancelled'] });
    session.receiver.respond(() => ({ status: 500 }));
    for (const entityId of ['job-h1', 'job-h2', 'job-h3']) await session.emit('job_cancelled', entityId);
    await session.settle(3);
    await session.page.getByRole('tab', { name: 'Recovery' }).click();
  });

  afterAll(async () => {
    await session?.close();
  });

  it('shows the running recovery on 409, polls it only while on the page, and cancels it', async () => {
    const { page } = session;
    const since = Date.now() - 3_600_000;
    // Started elsewhere (the CLI, another agent): the page learns of it from the 409.
    const elsewhere = await session.service.recoverDeliveries(PORTAL_AGENCY, { since });
    let reads = 0;
    page.on('request', (request) => {
      if (request.method() === 'GET' && request.url().endsWith(`/recoveries/${elsewhere.recoveryId}`))
        reads += 1;
    });

    expect(await count(page)).toBe('3 failed deliveries match.');
    await page.getByRole('button', { name: 'Replay 3 deliveries' }).click();
    await progress(page).getByText('Another recovery is already running').waitFor(WAIT);
    await progress(page).locator('.badge', { hasText: 'Running' }).waitFor(WAIT);
    await progress(page).getByText('Replayed 0 of 3').waitFor(WAIT);
    await expect.poll(() => reads, WAIT).toBeGreaterThanOrEqual(3);
    await expectNoAxeViolations(page, 'recovery running');

    // Leaving the tab removes the element: the reads stop.
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    await page.locator('svc-wh-delivery-log').waitFor();
    const readsWhenLeft = reads;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(reads).toBeLessThanOrEqual(readsWhenLeft + 1);

    // Coming back shows the same recovery again, and Cancel stops it, in the service too.
    await page.getByRole('tab', { name: 'Recovery' }).click();
    await progress(page).getByText('Replayed 0 of 3').waitFor(WAIT);
    await page.getByRole('button', { name: 'Cancel recovery' }).click();
    await progress(page).locator('.badge', { hasText: 'Cancelled' }).waitFor(WAIT);
    expect((await session.service.getRecovery(PORTAL_AGENCY, elsewhere.recoveryId)).status).toBe('cancelled');
    const readsWhenCancelled = reads;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(reads).toBe(readsWhenCancelled);
    expect(await page.getByRole('button', { name: 'Cancel recovery' }).count()).toBe(0);
  });
});
