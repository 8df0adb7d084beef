import type { DeliveryStatus } from '@svc/webhooks-core';
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

/** What a receiver written by someone else might answer: HTML that would run if the page parsed it. */
const HOSTILE_EXCERPT = '<img src=x onerror="window.__xss=1">';

/** job_created deliveries succeed (204); job_cancelled ones get 500 and a hostile body until told otherwise. */
function answerByEventType(session: PortalSession): void {
  session.receiver.respond((request) =>
    eventTypeOf(request.rawBody) === 'job_cancelled'
      ? { status: 500, body: HOSTILE_EXCERPT }
      : { status: 204 },
  );
}

function eventTypeOf(rawBody: string): string {
  return (JSON.parse(rawBody) as { eventType: string }).eventType;
}

function entityIdOf(rawBody: string): string | null {
  return (JSON.parse(rawBody) as { entityId: string | null }).entityId;
}

/** An element's text with its whitespace collapsed. */
async function text(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

const log = (page: Page) => page.locator('svc-wh-delivery-log');
const rows = (page: Page) => log(page).locator('tbody tr');
const rowOf = (page: Page, id: string) => log(page).locator(`tr[data-delivery-row="${id}"]`);

async function applyFilters(page: Page, filters: { status?: string; eventType?: string }): Promise<void> {
  await page.getByLabel('Status').selectOption({ label: filters.status ?? 'Any status' });
  await page.getByLabel('Event type').selectOption({ label: filters.eventType ?? 'Any event type' });
  await page.getByRole('button', { name: 'Apply' }).click();
}

/** Opens a delivery's detail from its row and waits for its heading; resolves with the detail. */
async function openDetail(page: Page, id: string, eventType: string): Promise<Locator> {
  await rowOf(page, id).getByRole('button', { name: /View/ }).click();
  const detail = page.locator('svc-wh-delivery-detail');
  await detail.getByRole('heading', { name: `Delivery of ${eventType}` }).waitFor();
  return detail;
}

/** The id of the View button that has focus, looking through the open shadow roots. */
function focusedDeliveryId(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    let active: Element | null = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return active?.getAttribute('data-delivery-id') ?? null;
  });
}

describe.skipIf(!canRunBrowser)('delivery log and detail in Chromium', () => {
  let session: PortalSession;
  const created: string[] = [];
  const cancelled: string[] = [];

  beforeAll(async () => {
    session = await openPortal();
    await session.configure({ subscribedEventTypes: ['job_created', 'job_cancelled'] });
    answerByEventType(session);
    for (const entityId of ['job-a1', 'job-a2', 'job-a3'])
      created.push((await session.emit('job_created', entityId)) as string);
    for (const entityId of ['job-c1', 'job-c2'])
      cancelled.push((await session.emit('job_cancelled', entityId)) as string);
    await session.settle(5);
    await session.page.getByRole('tab', { name: 'Deliveries' }).click();
  });

  afterAll(async () => {
    await session?.close();
  });

  it('lists every delivery with its status, attempts and last response', async () => {
    const { page } = session;
    await expect.poll(() => rows(page).count(), WAIT).toBe(5);
    const expectations: [string, string, DeliveryStatus][] = [
      ...created.map((id, i) => [id, `job-a${i + 1}`, 'success'] as [string, string, DeliveryStatus]),
      ...cancelled.map((id, i) => [id, `job-c${i + 1}`, 'failed'] as [string, string, DeliveryStatus]),
    ];
    for (const [id, entityId, status] of expectations) {
      const cells = await rowOf(page, id).locator('td').allInnerTexts();
      expect(await text(rowOf(page, id).locator('td:first-child code'))).toBe(
        status === 'success' ? 'job_created' : 'job_cancelled',
      );
      expect(cells[1]).toBe(status === 'success' ? 'Success' : 'Failed');
      expect(cells[2]).toBe(entityId);
      // Five attempts (one plus the fast schedule's four retries) for a failure, one for a success.
      expect(cells[4]).toBe(status === 'success' ? '1' : '5');
      expect(cells[5]).toBe(status === 'success' ? '204' : '500');
    }
    await expectNoAxeViolations(page, 'delivery list');
    await saveScreenshot(page, 'deliveries-desktop');
  });

  it('narrows the list by status and event type, and says when nothing matches', async () => {
    const { page } = session;
    await applyFilters(page, { status: 'Failed' });
    await expect.poll(() => rows(page).count(), WAIT).toBe(2);
    expect(await log(page).locator('tbody .badge').allInnerTexts()).toEqual(['Failed', 'Failed']);

    await applyFilters(page, { eventType: 'job_created' });
    await expect.poll(() => rows(page).count(), WAIT).toBe(3);
    expect(new Set(await log(page).locator('tbody td:first-child code').allInnerTexts())).toEqual(
      new Set(['job_created']),
    );

    await applyFilters(page, { status: 'Pending' });
    await expect
      .poll(() => log(page).getByText('No deliveries match these filters.').isVisible(), WAIT)
      .toBe(true);

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(5);
  });

  it('pages through the list with the cursor', async () => {
    const { page } = session;
    await log(page).evaluate((element) => {
      (element as HTMLElement & { pageSize: number }).pageSize = 2;
    });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(2);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(4);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(5);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    const ids = await rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-delivery-row')));
    expect(new Set(ids)).toEqual(new Set([...created, ...cancelled]));
    await log(page).evaluate((element) => {
      (element as HTMLElement & { pageSize: number }).pageSize = 20;
    });
  });

  it('shows a failed delivery: payload, attempts and the receiver’s answer as text', async () => {
    const { page } = session;
    const id = cancelled[0] as string;
    const detail = await openDetail(page, id, 'job_cancelled');
    expect(await text(detail.locator('dd').first())).toBe('Failed');
    await expect.poll(() => detail.getByText('5 of 5').count(), WAIT).toBe(1);

    const payload = JSON.parse((await detail.getByRole('region', { name: 'Payload' }).textContent()) ?? '');
    expect(payload.reason).toBe('The tenant fixed the leak.');

    const attempts = detail.locator('ol.timeline > li');
    expect(await attempts.count()).toBe(5);
    for (const text of await attempts.allInnerTexts()) {
      expect(text).toContain('Automatic');
      expect(text).toContain('HTTP 500');
    }
    const excerpt = detail.getByRole('region', { name: 'Response body of attempt 1' });
    expect(await excerpt.textContent()).toBe(HOSTILE_EXCERPT);
    expect(await detail.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

    await expectNoAxeViolations(page, 'delivery detail');
    // The page's CSP refuses inline style attributes: the view has none to refuse.
    expectNoPageErrors(session, 'delivery detail');
    await saveScreenshot(page, 'delivery-detail-desktop');
  });

  it('replays the failed delivery: the receiver gets it again and the new attempt shows as a replay', async () => {
    const { page, receiver } = session;
    const id = cancelled[0] as string;
    const before = receiver.requests.filter((request) => entityIdOf(request.rawBody) === 'job-c1').length;
    receiver.respond(() => ({ status: 204 }));
    const detail = page.locator('svc-wh-delivery-detail');
    await detail.getByRole('button', { name: 'Replay' }).click();
    // "Replay queued" until the outcome is known, then the outcome; the message keeps the focus throughout.
    await detail.getByText('Replayed: delivered.').waitFor(WAIT);
    expect(await focused(page)).toMatchObject({
      id: 'replay-message',
      text: expect.stringMatching(/^Replayed: delivered/),
    });

    await expect.poll(() => detail.locator('ol.timeline > li').count(), WAIT).toBe(6);
    const sixth = detail.locator('ol.timeline > li').nth(5);
    expect(await text(sixth.locator('h4'))).toBe('Attempt 6');
    expect(await sixth.locator('dd').allTextContents()).toEqual([
      'Replay',
      expect.any(String),
      expect.stringMatching(/^\d+(\.\d)? m?s$/),
      'HTTP 204',
    ]);
    await expect.poll(() => text(detail.locator('dd').first()), WAIT).toBe('Success');
    expect(receiver.requests.filter((request) => entityIdOf(request.rawBody) === 'job-c1').length).toBe(
      before + 1,
    );
    expect((await session.service.getDelivery(PORTAL_AGENCY, id)).status).toBe('success');

    // Back to the list: the row shows the new state and has focus again.
    await detail.getByRole('button', { name: 'Back to deliveries' }).click();
    await expect.poll(() => focusedDeliveryId(page), WAIT).toBe(id);
    expect(await text(rowOf(page, id).locator('.badge'))).toBe('Success');
    answerByEventType(session);
  });

  it('says when a replay failed again, and leaves Replay enabled', async () => {
    const { page } = session;
    const id = cancelled[1] as string;
    const detail = await openDetail(page, id, 'job_cancelled');
    await detail.getByRole('button', { name: 'Replay' }).click();
    await detail.getByText('Replayed: failed again.').waitFor(WAIT);
    expect(await focused(page)).toMatchObject({ id: 'replay-message' });
    expect(await detail.getByText('Replay queued').count()).toBe(0);
    expect(await text(detail.locator('dd').first())).toBe('Failed');
    expect(await detail.locator('ol.timeline > li').count()).toBe(6);
    expect(await detail.getByRole('button', { name: 'Replay' }).isDisabled()).toBe(false);
    await expectNoAxeViolations(page, 'delivery replayed, failed again');
    expectNoPageErrors(session, 'delivery replayed');
    await saveScreenshot(page, 'delivery-replay-failed-desktop');
    await detail.getByRole('button', { name: 'Back to deliveries' }).click();
    await expect.poll(() => focusedDeliveryId(page), WAIT).toBe(id);
  });

  it('shows a failed load in words and loads again on "Try again"', async () => {
    const { page } = session;
    await failRequests(page, '**/deliveries?*');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await log(page).getByRole('alert').getByText(INTERNAL_ERROR_MESSAGE).waitFor(WAIT);
    await page.unrouteAll();
    await log(page).getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(5);
  });

  it('closes the detail with Escape', async () => {
    const { page } = session;
    const id = created[0] as string;
    const detail = await openDetail(page, id, 'job_created');
    expect(await detail.getByRole('button', { name: 'Replay' }).isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => focusedDeliveryId(page), WAIT).toBe(id);
  });
});

describe.skipIf(!canRunBrowser)('delivery log on a phone', () => {
  let session: PortalSession;

  beforeAll(async () => {
    session = await openPortal({ viewport: 'phone' });
    await session.configure({ subscribedEventTypes: ['job_created', 'job_cancelled'] });
    answerByEventType(session);
  });

  afterAll(async () => {
    await session?.close();
  });

  it('says when there are no deliveries yet, and shows them after a refresh', async () => {
    const { page } = session;
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    await log(page).getByText('No deliveries yet.').waitFor(WAIT);
    await session.emit('job_created', 'job-p1');
    await session.emit('job_cancelled', 'job-p2');
    await session.settle(2);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(2);
  });

  it('shows each delivery as a card with its fields named, nothing scrolled sideways', async () => {
    const { page } = session;
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const box = log(page).locator('[part="table"]');
    expect(await box.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0);
    const card = rows(page).first();
    expect(await card.evaluate((row) => getComputedStyle(row).display)).toBe('block');
    const status = card.locator('td[data-label="Status"]');
    expect(await status.evaluate((cell) => getComputedStyle(cell, '::before').content)).toBe('"Status"');
    await expectNoAxeViolations(page, 'delivery list on a phone');
    await saveScreenshot(page, 'deliveries-phone');
  });
});
