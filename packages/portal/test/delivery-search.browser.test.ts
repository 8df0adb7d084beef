import { PORTAL_PATH } from '@svc/example-express-host';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canRunBrowser,
  expectFitsWidth,
  expectNoAxeViolations,
  expectNoPageErrors,
  openPortal,
  PORTAL_TOKEN,
  type PortalSession,
  saveScreenshot,
} from './browser-harness';

const WAIT = { timeout: 10_000 };

const log = (page: Page) => page.locator('svc-wh-delivery-log');
const rows = (page: Page) => log(page).locator('tbody tr');
const detailHeading = (page: Page) => page.locator('svc-wh-delivery-detail #detail-heading');
/** The creation-time presets; its name also holds the option chosen. */
const presetSelect = (page: Page) => log(page).getByRole('combobox', { name: /^Created/ });

async function text(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** The entity ids of the rows shown, top to bottom. */
async function entities(page: Page): Promise<string[]> {
  return log(page).locator('tbody td[data-label="Entity"]').allInnerTexts();
}

/**
 * Reload as a host that signs in by cookie would: the harness's token travels in the fragment, which the
 * page drops from the address, so it goes back in front of what the address holds now.
 */
async function reload(page: Page, baseUrl: string): Promise<void> {
  const hash = await page.evaluate(() => location.hash.slice(1));
  await page.goto('about:blank');
  await page.goto(`${baseUrl}${PORTAL_PATH}/#token=${PORTAL_TOKEN}&${hash}`);
}

function fragment(page: Page): Promise<URLSearchParams> {
  return page.evaluate(() => location.hash).then((hash) => new URLSearchParams(hash.slice(1)));
}

describe.skipIf(!canRunBrowser)('finding a delivery in Chromium', () => {
  let session: PortalSession;
  let found: string;
  let timedOut: string;

  beforeAll(async () => {
    session = await openPortal({ transportTimeoutMs: 500 });
    await session.configure({ subscribedEventTypes: ['job_created', 'job_cancelled'] });
    // job_cancelled gets no answer in time: its attempts time out.
    session.receiver.respond((request) =>
      JSON.parse(request.rawBody).eventType === 'job_cancelled'
        ? { status: 200, hangMs: 5_000 }
        : { status: 204 },
    );
    found = (await session.emit('job_created', 'job-find-me')) as string;
    await session.emit('job_created', 'job-other');
    await session.emit('job_created', 'job-find-me');
    await session.settle(3);
  });

  afterAll(async () => {
    await session?.close();
  });

  it('filters by entity id, shows when each was created, and keeps the filters in the address', async () => {
    const { page } = session;
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(3);
    expect(await log(page).locator('th').allInnerTexts()).toContain('Created');
    const createdAt = (await session.service.getDelivery('agency-portal', found)).createdAt;
    const shown = await text(log(page).locator(`tr[data-delivery-row="${found}"] td[data-label="Created"]`));
    expect(shown).toBe(
      new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium' }).format(createdAt),
    );

    await page.getByLabel('Entity id').fill('job-find-me');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => entities(page), WAIT).toEqual(['job-find-me', 'job-find-me']);
    expect((await fragment(page)).get('entityId')).toBe('job-find-me');
    expect((await fragment(page)).get('view')).toBe('deliveries');

    await presetSelect(page).selectOption({ label: 'Last hour' });
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(async () => (await fragment(page)).get('preset'), WAIT).toBe('1h');
    await expect.poll(() => rows(page).count(), WAIT).toBe(2);
    await expectNoAxeViolations(page, 'deliveries filtered by entity');
    await saveScreenshot(page, 'deliveries-search-desktop');

    // Reload: the same tab and filters.
    await reload(page, session.baseUrl);
    await expect.poll(() => entities(page), WAIT).toEqual(['job-find-me', 'job-find-me']);
    expect(await page.getByLabel('Entity id').inputValue()).toBe('job-find-me');
    expect(await presetSelect(page).inputValue()).toBe('1h');

    // A custom window shows its two fields; one that ends before it starts is refused.
    await presetSelect(page).selectOption({ label: 'Custom…' });
    await page.getByLabel('Created from').fill('2030-01-02T00:00');
    await page.getByLabel('Created before').fill('2030-01-01T00:00');
    await page.getByRole('button', { name: 'Apply' }).click();
    await log(page).getByText('must be before').waitFor();
    await page.getByLabel('Created from').fill('2000-01-01T00:00');
    await page.getByLabel('Created before').fill('2000-01-02T00:00');
    await page.getByRole('button', { name: 'Apply' }).click();
    await log(page).getByText('No deliveries match these filters.').waitFor(WAIT);
    expect((await fragment(page)).get('since')).toBe('2000-01-01T00:00');

    // Back: the filters before.
    await page.goBack();
    await expect.poll(() => entities(page), WAIT).toEqual(['job-find-me', 'job-find-me']);
    expect(await presetSelect(page).inputValue()).toBe('1h');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(3);
    expect((await fragment(page)).toString()).toBe('view=deliveries');
    expectNoPageErrors(session, 'delivery filters');
  });

  it('opens a delivery by its id or webhook id, keeps it in the address, and says when none has it', async () => {
    const { page, baseUrl } = session;
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    await log(page).getByLabel('Delivery or webhook id').fill(`whdel_${found}`);
    await page.getByRole('button', { name: 'Open delivery' }).click();
    // The heading says the event type once the delivery is read.
    await expect.poll(() => text(detailHeading(page)), WAIT).toBe('Delivery of job_created');
    expect((await fragment(page)).get('delivery')).toBe(found);

    // The address opens it again, from a fresh page.
    await page.goto('about:blank');
    await page.goto(`${baseUrl}${PORTAL_PATH}/#token=${PORTAL_TOKEN}&view=deliveries&delivery=${found}`);
    await detailHeading(page).waitFor(WAIT);
    await page.locator('svc-wh-delivery-detail').getByText(`whdel_${found}`).waitFor();
    await page.getByRole('button', { name: 'Back to deliveries' }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(3);
    expect((await fragment(page)).get('delivery')).toBeNull();
    // Back opens the delivery again.
    await page.goBack();
    await detailHeading(page).waitFor(WAIT);
    await page.getByRole('button', { name: 'Back to deliveries' }).click();

    await log(page).getByLabel('Delivery or webhook id').fill('whdel_nope');
    await page.getByRole('button', { name: 'Open delivery' }).click();
    const alert = log(page).locator('#find-error');
    await alert.waitFor(WAIT);
    expect(await text(alert)).toBe('No delivery of yours has the id whdel_nope.');
    expect(await log(page).getByLabel('Delivery or webhook id').getAttribute('aria-invalid')).toBe('true');
    await expectNoAxeViolations(page, 'delivery id not found');
    expectNoPageErrors(session, 'open by id');
  });

  it('shows a timeout as no answer, refreshes on its own when asked, and fits a phone as cards', async () => {
    const { page } = session;
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(3);
    await page.clock.install();
    await page.getByLabel('Refresh every 10 s').check();
    timedOut = (await session.emit('job_cancelled', 'job-slow')) as string;
    const row = log(page).locator(`tr[data-delivery-row="${timedOut}"]`);
    expect(await row.count()).toBe(0);
    await page.clock.runFor(10_000);
    await row.waitFor(WAIT);
    // Its attempt times out (the transport's deadline), then the list says so on the next refresh.
    await expect
      .poll(async () => (await session.service.getDelivery('agency-portal', timedOut)).attempt, {
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
    await page.clock.runFor(10_000);
    await expect.poll(() => text(row.locator('td[data-label="Last response"]')), WAIT).toBe('No answer');
    await page.getByLabel('Refresh every 10 s').uncheck();

    await page.setViewportSize({ width: 390, height: 844 });
    const display = await row
      .locator('td')
      .nth(1)
      .evaluate((cell) => getComputedStyle(cell).display);
    expect(display).toBe('flex');
    const wrap = log(page).locator('.table-wrap');
    expect(await wrap.evaluate((box) => box.scrollWidth - box.clientWidth)).toBeLessThanOrEqual(0);
    await expectNoAxeViolations(page, 'delivery cards on a phone');
    await saveScreenshot(page, 'deliveries-timeout-phone');
    await expectFitsWidth(page, 'delivery cards');
    await page.setViewportSize({ width: 1280, height: 900 });
    expectNoPageErrors(session, 'timeouts and cards');
  });
});
