import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canRunBrowser,
  expectNoAxeViolations,
  expectNoPageErrors,
  failRequests,
  focused,
  INTERNAL_ERROR_MESSAGE,
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
const history = (page: Page) => page.locator('svc-wh-recovery-history');
const historyRows = (page: Page) => history(page).locator('tbody tr');

/** The history's rows, top to bottom, as their recovery ids. */
function shownRecoveryIds(page: Page): Promise<(string | null)[]> {
  return historyRows(page).evaluateAll((rows) => rows.map((row) => row.getAttribute('data-recovery-id')));
}

/** The history's rows, top to bottom, as their status badges' text. */
function shownStatuses(page: Page): Promise<string[]> {
  return historyRows(page)
    .locator('.badge')
    .evaluateAll((badges) => badges.map((badge) => badge.textContent?.trim() ?? ''));
}

/** The history row of one recovery. */
function historyRow(page: Page, recoveryId: string): Locator {
  return history(page).locator(`tr[data-recovery-id="${recoveryId}"]`);
}

/** The recovery a history row's header (its creation time) stands for, when that header has the focus. */
function focusedHistoryRow(page: Page): Promise<string | null> {
  return history(page).evaluate(
    (element) => element.shadowRoot?.activeElement?.closest('tr')?.getAttribute('data-recovery-id') ?? null,
  );
}

/** The agency's recovery ids as the service lists them, newest first. */
async function storedRecoveryIds(session: PortalSession): Promise<string[]> {
  const { recoveries } = await session.service.listRecoveries(PORTAL_AGENCY, { limit: 100 });
  return recoveries.map((recovery) => recovery.id);
}

/** Waits for the walker to finish a recovery (in a hook, where `expect.poll` cannot run). */
async function waitUntilCompleted(session: PortalSession, recoveryId: string): Promise<void> {
  const deadline = Date.now() + WAIT.timeout;
  while ((await session.service.getRecovery(PORTAL_AGENCY, recoveryId)).status !== 'completed') {
    if (Date.now() > deadline) throw new Error(`Recovery ${recoveryId} did not complete.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts a recovery as the CLI or another agent would, and cancels it unless told to leave it running. */
async function recoverElsewhere(
  session: PortalSession,
  options: { eventTypes?: string[]; keepRunning?: boolean } = {},
): Promise<string> {
  const { recoveryId } = await session.service.recoverDeliveries(PORTAL_AGENCY, {
    since: Date.now() - 3_600_000,
    ...(options.eventTypes ? { eventTypes: options.eventTypes } : {}),
  });
  if (!options.keepRunning) await session.service.cancelRecovery(PORTAL_AGENCY, recoveryId);
  return recoveryId;
}

/** Counts, and resolves with the count's sentence once it is shown and has the focus. */
async function count(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Count failed deliveries' }).click();
  const result = form(page).locator('.count p');
  await result.waitFor(WAIT);
  // The Count button was disabled while counting; the focus went to the count, not to <body>.
  await expect.poll(async () => (await focused(page))?.id, WAIT).toBe('count-result');
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
    // Nothing to start: no red "Replay 0 deliveries" button, a plain sentence instead.
    await form(page).getByText('Nothing to replay.').waitFor(WAIT);
    expect(
      await form(page)
        .getByRole('button', { name: /^Replay/ })
        .count(),
    ).toBe(0);
    expect(await form(page).locator('button.danger').count()).toBe(0);
    await expectNoAxeViolations(page, 'recovery form, nothing matched');
    await saveScreenshot(page, 'recovery-nothing-desktop');
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

    // A count the API refuses: the error takes the focus the disabled Count button dropped.
    await failRequests(page, '**/deliveries/recover');
    await page.getByRole('button', { name: 'Count failed deliveries' }).click();
    await form(page).getByRole('alert').getByText(INTERNAL_ERROR_MESSAGE).waitFor(WAIT);
    await expect.poll(async () => (await focused(page))?.id, WAIT).toBe('form-error');
    await page.unrouteAll();
    // The page's CSP refuses inline style attributes: the form has none to refuse.
    expectNoPageErrors(session, 'recovery form');
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

    // The history has it too, finished, once the progress saw it end.
    const [recoveryId] = await storedRecoveryIds(session);
    const row = historyRow(page, recoveryId as string);
    await row.locator('.badge', { hasText: 'Completed' }).waitFor(WAIT);
    await row.getByRole('cell', { name: '2 of 2' }).waitFor(WAIT);
    expect(await row.getByRole('cell', { name: 'job_cancelled' }).count()).toBe(0);
    expect(await row.getByRole('cell', { name: 'All', exact: true }).count()).toBe(1);

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
    expectNoPageErrors(session, 'recovery progress');
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

describe.skipIf(!canRunBrowser)('the history of recoveries, in Chromium', () => {
  let session: PortalSession;

  beforeAll(async () => {
    // No recovery walker: each recovery runs until it is cancelled, so the history holds every status.
    session = await openPortal({ worker: { bulkRecovery: false } });
    await session.configure({ subscribedEventTypes: ['job_created', 'job_cancelled'] });
    session.receiver.respond(() => ({ status: 500 }));
    for (const entityId of ['job-p1', 'job-p2', 'job-p3']) await session.emit('job_cancelled', entityId);
    await session.settle(3);
    await session.page.getByRole('tab', { name: 'Recovery' }).click();
  });

  afterAll(async () => {
    await session?.close();
  });

  it('lists the recoveries started and cancelled here, newest first, as each starts and ends', async () => {
    const { page } = session;
    await history(page).getByText('No recovery has run yet.').waitFor(WAIT);
    await expectNoAxeViolations(page, 'recovery history, empty');

    for (const round of [1, 2]) {
      expect(await count(page)).toBe('3 failed deliveries match.');
      await page.getByRole('button', { name: 'Replay 3 deliveries' }).click();
      // A fresh notice each time: the first recovery's end must not speak for the second.
      await progress(page).getByRole('status').getByText('Recovery started.').waitFor(WAIT);
      await expect
        .poll(() => shownStatuses(page), WAIT)
        .toEqual(round === 1 ? ['Running'] : ['Running', 'Cancelled']);
      await historyRows(page).first().getByText('Progress shown above').waitFor(WAIT);
      await page.getByRole('button', { name: 'Cancel recovery' }).click();
      await expect
        .poll(() => shownStatuses(page), WAIT)
        .toEqual(round === 1 ? ['Cancelled'] : ['Cancelled', 'Cancelled']);
    }

    const stored = await storedRecoveryIds(session);
    expect(stored).toHaveLength(2);
    expect(await shownRecoveryIds(page)).toEqual(stored);
    const newest = historyRow(page, stored[0] as string);
    await newest.getByRole('cell', { name: '0 of 3' }).waitFor(WAIT);
    // Cancelled recoveries have ended: the last column has a time, not a dash.
    expect((await newest.locator('td').last().textContent())?.trim()).not.toBe('—');
    await expectNoAxeViolations(page, 'recovery history');
  });

  it('shows ten at first and the rest with "Show more", the focus on the first new row', async () => {
    const { page } = session;
    for (let started = 0; started < 10; started++) await recoverElsewhere(session);
    await history(page).getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => historyRows(page).count(), WAIT).toBe(10);
    const stored = await storedRecoveryIds(session);
    expect(stored).toHaveLength(12);
    expect(await shownRecoveryIds(page)).toEqual(stored.slice(0, 10));

    await history(page).getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => historyRows(page).count(), WAIT).toBe(12);
    expect(await shownRecoveryIds(page)).toEqual(stored);
    expect(await history(page).getByRole('button', { name: 'Show more' }).count()).toBe(0);
    await expect.poll(() => focusedHistoryRow(page), WAIT).toBe(stored[10]);
  });

  it('follows a running recovery picked from the list, and the list shows how it ended', async () => {
    const { page } = session;
    const running = await recoverElsewhere(session, { eventTypes: ['job_cancelled'], keepRunning: true });
    await history(page).getByRole('button', { name: 'Refresh' }).click();
    const row = historyRow(page, running);
    await row.locator('.badge', { hasText: 'Running' }).waitFor(WAIT);
    await row.getByRole('cell', { name: 'job_cancelled' }).waitFor(WAIT);
    // A refresh keeps every row "Show more" had added.
    expect(await historyRows(page).count()).toBe(12);
    expect((await shownRecoveryIds(page))[0]).toBe(running);

    await row.getByRole('button', { name: /^Show progress of the recovery created / }).click();
    await progress(page).getByText('Replayed 0 of 3').waitFor(WAIT);
    await progress(page).locator('.badge', { hasText: 'Running' }).waitFor(WAIT);
    expect(
      await progress(page)
        .locator('h3')
        .evaluate((heading) => (heading.getRootNode() as ShadowRoot).activeElement === heading),
    ).toBe(true);
    await row.getByText('Progress shown above').waitFor(WAIT);
    expect(await page.getByRole('button', { name: /^Replay 3/ }).count()).toBe(0);

    await page.getByRole('button', { name: 'Cancel recovery' }).click();
    await row.locator('.badge', { hasText: 'Cancelled' }).waitFor(WAIT);
    expect(await row.getByRole('button', { name: /^Show progress/ }).count()).toBe(0);
    await expectNoAxeViolations(page, 'recovery history after following one');
  });
});

describe.skipIf(!canRunBrowser)('the history of recoveries on a phone', () => {
  let session: PortalSession;

  beforeAll(async () => {
    session = await openPortal({ viewport: 'phone' });
    await session.configure({ subscribedEventTypes: ['job_created', 'job_cancelled'] });
    session.receiver.respond(() => ({ status: 500 }));
    for (const entityId of ['job-q1', 'job-q2']) await session.emit('job_cancelled', entityId);
    await session.emit('job_created', 'job-q3');
    await session.settle(3);
    // The walker runs here: each recovery completes (its replays fail again, the receiver still answering 500).
    for (const eventTypes of [undefined, ['job_cancelled'], ['job_created', 'job_cancelled']]) {
      const id = await recoverElsewhere(session, {
        ...(eventTypes ? { eventTypes } : {}),
        keepRunning: true,
      });
      await waitUntilCompleted(session, id);
    }
  });

  afterAll(async () => {
    await session?.close();
  });

  it('scrolls the history inside its own box, not the page', async () => {
    const { page } = session;
    await page.getByRole('tab', { name: 'Recovery' }).click();
    await expect.poll(() => historyRows(page).count(), WAIT).toBe(3);
    expect(await shownStatuses(page)).toEqual(['Completed', 'Completed', 'Completed']);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const box = history(page).locator('[part="table"]');
    const [scrollWidth, clientWidth] = await box.evaluate((element) => [
      element.scrollWidth,
      element.clientWidth,
    ]);
    expect(scrollWidth).toBeGreaterThan(clientWidth as number);
    await expectNoAxeViolations(page, 'recovery history on a phone');
    await saveScreenshot(page, 'recovery-history-phone');
  });
});
