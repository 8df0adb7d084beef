import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRunBrowser, openPortal, PORTAL_AGENCY, type PortalSession } from './browser-harness';

const WAIT = { timeout: 10_000 };

/** True when the element has the focus (inside its shadow root, where `document.activeElement` cannot see). */
function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate(
    (element) => (element.getRootNode() as Document | ShadowRoot).activeElement === element,
  );
}

/** What has the focus, named by its accessible text, down through open shadow roots. */
function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    let active: Element | null = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    if (!active) return '';
    const label = active.getAttribute('aria-label') ?? (active as HTMLInputElement).labels?.[0]?.textContent;
    return `${active.tagName.toLowerCase()}:${(label ?? active.textContent ?? '').replace(/\s+/g, ' ').trim()}`;
  });
}

describe.skipIf(!canRunBrowser)('the portal with a keyboard only', () => {
  let session: PortalSession;

  beforeAll(async () => {
    session = await openPortal();
  });

  afterAll(async () => {
    await session?.close();
  });

  it('moves between tabs with the arrow keys, Home and End, the focus following the selection', async () => {
    const { page } = session;
    const tab = (name: string) => page.getByRole('tab', { name });
    await tab('Endpoint').focus();
    await page.keyboard.press('ArrowRight');
    await page.locator('svc-wh-delivery-log').waitFor(WAIT);
    expect(await tab('Deliveries').getAttribute('aria-selected')).toBe('true');
    expect(await isFocused(tab('Deliveries'))).toBe(true);
    await page.keyboard.press('End');
    await page.locator('svc-wh-event-catalogue').waitFor(WAIT);
    expect(await isFocused(tab('Event types'))).toBe(true);
    await page.keyboard.press('ArrowRight');
    expect(await isFocused(tab('Endpoint'))).toBe(true);
    await page.keyboard.press('ArrowLeft');
    expect(await isFocused(tab('Event types'))).toBe(true);
    await page.keyboard.press('ArrowLeft');
    await page.locator('svc-wh-bulk-recovery').waitFor(WAIT);
    expect(await isFocused(tab('Recovery'))).toBe(true);
    await page.keyboard.press('Home');
    await page.locator('svc-wh-endpoint-view').waitFor(WAIT);
    expect(await tab('Endpoint').getAttribute('aria-selected')).toBe('true');
    // Only the selected tab is in the Tab order: one Tab from it leaves the tab list.
    expect(await tab('Deliveries').getAttribute('tabindex')).toBe('-1');
  });

  it('creates the endpoint with the keyboard alone: type, Tab, Space, Enter', async () => {
    const { page } = session;
    await page.getByLabel('Webhook URL').focus();
    await page.keyboard.type(session.receiver.url);
    // Tab through the form to the first event type's checkbox, ticking it with Space.
    for (let presses = 0; presses < 10 && !(await focusedName(page)).includes('job_created'); presses++) {
      await page.keyboard.press('Tab');
    }
    expect(await focusedName(page)).toContain('job_created');
    await page.keyboard.press('Space');
    for (
      let presses = 0;
      presses < 20 && !(await focusedName(page)).startsWith('button:Create endpoint');
      presses++
    ) {
      await page.keyboard.press('Tab');
    }
    expect(await focusedName(page)).toMatch(/^button:Create endpoint/);
    await page.keyboard.press('Enter');
    await page.locator('svc-wh-endpoint-secret [data-secret="full"]').waitFor(WAIT);
    const config = await session.service.getConfig(PORTAL_AGENCY);
    expect(config.webhookUrl).toBe(session.receiver.url);
    expect(config.subscribedEventTypes).toEqual(['job_created']);
  });
});
