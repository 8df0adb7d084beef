import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canRunBrowser,
  expectFitsWidth,
  expectNoAxeViolations,
  expectNoPageErrors,
  openPortal,
  type PortalSession,
  saveScreenshot,
} from './browser-harness';

const WAIT = { timeout: 10_000 };

const catalogue = (page: Page) => page.locator('svc-wh-event-catalogue');
const typeItem = (page: Page, eventType: string) =>
  catalogue(page).locator(`li[data-event-type="${eventType}"]`);

/** A field row's cells: path, type, required, description. */
async function fieldRow(item: Locator, path: string): Promise<string[]> {
  return item.locator(`tr[data-field="${path}"] td`).allInnerTexts();
}

describe.skipIf(!canRunBrowser)('the event catalogue in Chromium', () => {
  let session: PortalSession;

  beforeAll(async () => {
    session = await openPortal();
    await session.configure({ subscribedEventTypes: ['job_created'] });
    await session.reload();
  });

  afterAll(async () => {
    await session?.close();
  });

  it('lists every type of the catalogue, marks the subscribed ones, and shows fields, example and schema', async () => {
    const { page, service } = session;
    await page.getByRole('tab', { name: 'Event types' }).click();
    await typeItem(page, 'job_created').waitFor(WAIT);
    const listed = await catalogue(page)
      .locator('li[data-event-type]')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-event-type')));
    expect(listed).toEqual(service.events.definitions.map((definition) => definition.type));
    expect(await typeItem(page, 'job_created').locator('summary .badge').first().textContent()).toBe(
      'Subscribed',
    );
    expect(await typeItem(page, 'job_cancelled').locator('summary .badge').count()).toBe(0);
    const description = service.events.get('job_created')?.description ?? '';
    expect(await typeItem(page, 'job_created').locator('summary').first().textContent()).toContain(
      description,
    );

    const item = typeItem(page, 'job_created');
    await item.locator('summary').first().click();
    expect(await fieldRow(item, 'webhookId')).toEqual([
      'webhookId',
      'string',
      'Yes',
      '`whdel_{deliveryId}`: the same on every attempt and replay of one delivery; deduplicate on it',
    ]);
    expect((await fieldRow(item, 'eventType')).slice(0, 3)).toEqual(['eventType', '"job_created"', 'Yes']);
    expect((await fieldRow(item, 'entityId')).slice(0, 3)).toEqual(['entityId', 'string | null', 'Yes']);
    // The metadata's own fields, from the schema's $defs.
    expect(await item.locator('tr[data-field^="metadata."]').count()).toBeGreaterThan(0);

    const example = JSON.parse((await item.locator('pre[id^="example-body"]').textContent()) ?? 'null');
    expect(example.eventType).toBe('job_created');
    expect(example.webhookId).toMatch(/^whdel_/);
    const schema = JSON.parse((await item.locator('pre[id^="schema-"]').textContent()) ?? 'null');
    expect(schema.title).toBe('job_created');
    expect(schema.required).toContain('metadata');

    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.baseUrl });
    await item.getByRole('button', { name: 'Copy example' }).click();
    await expect
      .poll(async () => JSON.parse(await page.evaluate(() => navigator.clipboard.readText())).eventType)
      .toBe('job_created');

    await expectNoAxeViolations(page, 'event catalogue');
    await saveScreenshot(page, 'event-catalogue-desktop');
    expectNoPageErrors(session, 'event catalogue');
  });

  it('fits a phone and 320 px with a type open', async () => {
    const { page } = session;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tab', { name: 'Event types' }).click();
    const item = typeItem(page, 'quote_approved');
    await item.waitFor(WAIT);
    await item.locator('summary').first().click();
    await item.locator('table').waitFor();
    await expectNoAxeViolations(page, 'event catalogue on a phone');
    await saveScreenshot(page, 'event-catalogue-phone');
    await expectFitsWidth(page, 'event catalogue');
    expectNoPageErrors(session, 'event catalogue on a phone');
  });
});
