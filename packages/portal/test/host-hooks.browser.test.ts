import { PORTAL_PATH } from '@svc/example-express-host';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
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

/** Counts the `unauthorized` events that reach the document, from before the page's own script runs. */
async function countUnauthorized(page: Page): Promise<void> {
  await page.context().addInitScript(() => {
    const win = window as unknown as { __unauthorized: { status: number; code: string }[] };
    win.__unauthorized = [];
    document.addEventListener('unauthorized', (event) => {
      win.__unauthorized.push((event as CustomEvent<{ status: number; code: string }>).detail);
    });
  });
}

function unauthorizedEvents(page: Page): Promise<{ status: number; code: string }[]> {
  return page.evaluate(
    () => (window as unknown as { __unauthorized: { status: number; code: string }[] }).__unauthorized,
  );
}

const log = (page: Page) => page.locator('svc-wh-delivery-log');

function setPortal(page: Page, values: Record<string, unknown>): Promise<void> {
  return page.evaluate((props) => {
    Object.assign(document.querySelector('svc-webhooks-portal') as HTMLElement, props);
  }, values);
}

/** The computed background of the endpoint settings card. */
function cardBackground(page: Page): Promise<string> {
  return page
    .locator('svc-wh-endpoint-settings .card')
    .evaluate((card) => getComputedStyle(card).backgroundColor);
}

describe.skipIf(!canRunBrowser)('what the host page hooks into, in Chromium', () => {
  let session: PortalSession | null = null;

  afterEach(async () => {
    await session?.close();
    session = null;
  });

  it('fires unauthorized once per token on a 401 and says so in plain words, with no Try again', async () => {
    session = await openPortal();
    const { page, baseUrl } = session;
    await countUnauthorized(page);
    // A reload without the token: every request of the page is a 401.
    await page.goto(`${baseUrl}${PORTAL_PATH}/`);
    const message = page.getByRole('heading', { name: 'Please sign in again' });
    await message.waitFor(WAIT);
    await expect.poll(() => unauthorizedEvents(page), WAIT).toEqual([{ status: 401, code: 'unauthorized' }]);
    const panel = page.getByRole('tabpanel');
    expect(await panel.textContent()).toContain('Sign in again to continue');
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    expect(await page.locator('svc-webhooks-portal').textContent()).not.toMatch(/authorization header/i);
    expect(await page.getByText(/authorization header/i).count()).toBe(0);
    // Another tab says the same, without a second event.
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    await message.waitFor();
    await expectNoAxeViolations(page, 'signed out');
    await saveScreenshot(page, 'signed-out-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoAxeViolations(page, 'signed out on a phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await unauthorizedEvents(page)).toHaveLength(1);

    // The host signs the agent in again: the portal works at once.
    await setPortal(page, { token: PORTAL_TOKEN });
    await page.locator('svc-wh-delivery-log').getByText('No deliveries yet.').waitFor(WAIT);
    expect(await message.count()).toBe(0);

    // A token that expired is a new 401, told once more.
    await setPortal(page, { token: 'tok_expired' });
    await message.waitFor(WAIT);
    await expect.poll(async () => (await unauthorizedEvents(page)).length, WAIT).toBe(2);
    expectNoPageErrors(session, 'signed out');
  });

  it('takes the host’s words for any string and shows dates in the same locale, English by default', async () => {
    // The browser's own locale is German: the portal's default is still English, words and dates.
    session = await openPortal({ locale: 'de-DE' });
    const { page } = session;
    await session.configure();
    await session.emit('job_created', 'job-words');
    await session.settle(1);
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    const created = page.locator('svc-wh-delivery-log td[data-label="Created"]');
    await created.waitFor(WAIT);
    expect(await created.textContent()).toMatch(
      /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}\s?[AP]M$/,
    );

    await page.evaluate(() => {
      const portal = document.querySelector('svc-webhooks-portal') as HTMLElement & { locale: string };
      portal.setAttribute(
        'strings',
        JSON.stringify({
          'tab.deliveries': 'Zustellungen',
          'log.title': 'Alle Zustellungen',
          'log.created': 'Erstellt',
        }),
      );
      portal.locale = 'de-DE';
    });
    await page.getByRole('tab', { name: 'Zustellungen' }).waitFor();
    await page.getByRole('heading', { name: 'Alle Zustellungen' }).waitFor();
    const erstellt = page.locator('svc-wh-delivery-log td[data-label="Erstellt"]');
    await erstellt.waitFor();
    expect(await erstellt.textContent()).toMatch(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}$/);
    // The delivery's detail and the test send take them too.
    await setPortal(page, {
      strings: {
        'detail.back': 'Zurück zur Liste',
        'test.send': 'Testereignis senden',
        'detail.created': 'Erstellt',
      },
    });
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    await log(page).locator('tbody button').first().click();
    await page.getByRole('button', { name: 'Zurück zur Liste' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Zurück zur Liste' }).click();
    await page.getByRole('tab', { name: 'Endpoint' }).click();
    await page.getByRole('button', { name: 'Testereignis senden' }).waitFor(WAIT);
    // Keys it does not know, or values that are not strings, change nothing.
    await setPortal(page, { strings: { 'tab.endpoint': 42, 'no.such.key': 'x' } });
    await page.getByRole('tab', { name: 'Endpoint' }).waitFor();
    expectNoPageErrors(session, 'strings and locale');
  });

  it('follows prefers-color-scheme, and the theme attribute forces either palette', async () => {
    session = await openPortal();
    const { page } = session;
    await session.configure();
    await session.reload();
    await page.getByRole('heading', { name: 'Endpoint settings' }).waitFor(WAIT);
    expect(await cardBackground(page)).toBe('rgb(255, 255, 255)');

    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => cardBackground(page)).toBe('rgb(27, 31, 39)');
    await expectNoAxeViolations(page, 'dark endpoint tab');
    await saveScreenshot(page, 'endpoint-dark-desktop');
    await page.evaluate(() => document.querySelector('svc-webhooks-portal')?.setAttribute('theme', 'light'));
    await expect.poll(() => cardBackground(page)).toBe('rgb(255, 255, 255)');

    await page.emulateMedia({ colorScheme: 'light' });
    await page.evaluate(() => document.querySelector('svc-webhooks-portal')?.setAttribute('theme', 'dark'));
    await expect.poll(() => cardBackground(page)).toBe('rgb(27, 31, 39)');
    // A colour the host sets still wins over either palette.
    await page.evaluate(() =>
      document
        .querySelector('svc-webhooks-portal')
        ?.style.setProperty('--svc-wh-color-surface', 'rgb(1, 2, 3)'),
    );
    await expect.poll(() => cardBackground(page)).toBe('rgb(1, 2, 3)');
    await page.evaluate(() =>
      document.querySelector('svc-webhooks-portal')?.style.removeProperty('--svc-wh-color-surface'),
    );

    for (const tab of ['Deliveries', 'Recovery', 'Event types']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByRole('tabpanel').locator('.card').first().waitFor(WAIT);
      await expectNoAxeViolations(page, `dark ${tab} tab`);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tab', { name: 'Endpoint' }).click();
    await page.getByRole('heading', { name: 'Endpoint settings' }).waitFor(WAIT);
    await expectNoAxeViolations(page, 'dark endpoint tab on a phone');
    expectNoPageErrors(session, 'dark mode');
  });

  it('fits 320 px on every tab: the tab strip wraps instead of hiding a tab', async () => {
    session = await openPortal({ viewport: 'phone' });
    const { page } = session;
    await session.configure();
    await session.emit('job_created', 'job-narrow-screen-with-a-long-entity-id-0123456789');
    await session.settle(1);
    await session.reload();
    await page.getByRole('heading', { name: 'Endpoint settings' }).waitFor(WAIT);
    await expectFitsWidth(page, 'endpoint tab');
    for (const tab of ['Deliveries', 'Recovery', 'Event types']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByRole('tabpanel').locator('.card').first().waitFor(WAIT);
      await expectFitsWidth(page, `${tab} tab`);
    }
    expectNoPageErrors(session, '320 px');
  });
});
