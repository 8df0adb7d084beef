import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  canRunBrowser,
  expectFitsWidth,
  expectNoAxeViolations,
  expectNoPageErrors,
  focused,
  openPortal,
  PORTAL_AGENCY,
  type PortalSession,
  saveScreenshot,
} from './browser-harness';

const fullSecret = (page: Page) => page.locator('svc-wh-endpoint-secret [data-secret="full"]');
const maskedSecret = (page: Page) => page.locator('svc-wh-endpoint-secret [data-secret="masked"]');
const secretCard = (page: Page) => page.locator('svc-wh-endpoint-secret .once');
const secretStatus = (page: Page) => page.locator('svc-wh-endpoint-secret #secret-status');
const leaveWarning = (page: Page) => page.getByRole('alertdialog');

/** Whether the element is wholly inside the viewport. */
function inView(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((element) => {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.top < window.innerHeight && box.height > 0;
  });
}

/** Creates the endpoint from the empty form, as a new agency does. */
async function createEndpoint(session: PortalSession): Promise<string> {
  const { page, receiver } = session;
  await page.getByRole('heading', { name: 'No endpoint yet' }).waitFor();
  await page.getByRole('checkbox', { name: /^job_created / }).check();
  await page.getByLabel('Webhook URL').fill(receiver.url);
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await fullSecret(page).waitFor();
  return (await fullSecret(page).textContent())?.trim() ?? '';
}

describe.skipIf(!canRunBrowser)('the one-time signing secret in Chromium', () => {
  let session: PortalSession | null = null;

  afterEach(async () => {
    await session?.close();
    session = null;
  });

  it('brings the new secret into view, focuses and announces it, with a snippet and a docs link', async () => {
    // A short window: below the settings form, the card starts under the fold.
    session = await openPortal();
    const { page } = session;
    await page.setViewportSize({ width: 1280, height: 700 });
    const secret = await createEndpoint(session);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);

    await expect.poll(async () => (await focused(page))?.className).toBe('once');
    expect(await inView(page, 'svc-wh-endpoint-secret .once')).toBe(true);
    // A screen reader hears what to do, not only "Endpoint created."
    expect(await secretStatus(page).textContent()).toContain(
      'Your signing secret is shown below, only this once',
    );
    expect(await secretCard(page).getAttribute('aria-describedby')).toBe('once-warning');

    const snippet = page.locator('svc-wh-endpoint-secret #snippet');
    expect(await snippet.textContent()).toContain("import { verifyWebhook } from '@svc/webhooks-verify';");
    expect(await snippet.textContent()).toContain("req.headers['x-service-signature']");
    const link = page.getByRole('link', { name: 'Receiving webhooks: the full guide' });
    expect(await link.getAttribute('href')).toMatch(/receiving-webhooks\.md$/);
    expect(await link.getAttribute('rel')).toContain('noopener');

    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.baseUrl });
    await page.getByRole('button', { name: 'Copy code' }).click();
    await secretStatus(page).getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('verifyWebhook(\n  rawBody,');

    await expectNoAxeViolations(page, 'new secret with snippet');
    await saveScreenshot(page, 'secret-desktop');
    expectNoPageErrors(session, 'new secret');
  });

  it('keeps the secret through a tab switch, after a warning, until the agent confirms it is stored', async () => {
    session = await openPortal();
    const { page } = session;
    const secret = await createEndpoint(session);

    await page.getByRole('tab', { name: 'Deliveries' }).click();
    await leaveWarning(page).waitFor();
    expect(await leaveWarning(page).textContent()).toContain(
      'You have not confirmed that you stored the new signing secret.',
    );
    await expect.poll(async () => (await focused(page))?.className).toBe('leave');
    expect(await page.getByRole('tab', { name: 'Endpoint' }).getAttribute('aria-selected')).toBe('true');
    await expectNoAxeViolations(page, 'tab switch warning');

    // Staying goes back to the secret; Escape does the same.
    await page.getByRole('button', { name: 'Show the secret' }).click();
    expect(await leaveWarning(page).count()).toBe(0);
    await expect.poll(async () => (await focused(page))?.className).toBe('once');
    await page.getByRole('tab', { name: 'Recovery' }).click();
    await leaveWarning(page).waitFor();
    await page.keyboard.press('Escape');
    expect(await leaveWarning(page).count()).toBe(0);

    // Switching anyway keeps it: back on the Endpoint tab it is still there, whole.
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    await page.getByRole('button', { name: 'Switch anyway' }).click();
    await page.locator('svc-wh-delivery-log').waitFor();
    await page.getByRole('tab', { name: 'Endpoint' }).click();
    await fullSecret(page).waitFor();
    expect((await fullSecret(page).textContent())?.trim()).toBe(secret);

    // Leaving the page asks first while it is unconfirmed.
    let asked = 0;
    page.on('dialog', (dialog) => {
      if (dialog.type() === 'beforeunload') asked++;
      void dialog.dismiss();
    });
    await page.evaluate(() => location.reload());
    await expect.poll(() => asked).toBe(1);
    expect((await fullSecret(page).textContent())?.trim()).toBe(secret);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    await maskedSecret(page).waitFor();
    expect(await secretStatus(page).textContent()).toContain('Secret confirmed as stored.');
    expect((await focused(page))?.text).toBe('Rotate secret');
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    await page.locator('svc-wh-delivery-log').waitFor();
    expect(await leaveWarning(page).count()).toBe(0);
    expectNoPageErrors(session, 'secret kept');
  });

  it('shows the rotated secret the same way, with the snippet for all headers under Standard Webhooks', async () => {
    session = await openPortal({ viewport: 'phone' });
    const { page, service } = session;
    await session.configure({ signatureScheme: 'both' });
    await session.reload();
    await maskedSecret(page).waitFor();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Confirm rotation' }).click();
    await fullSecret(page).waitFor();
    await expect.poll(async () => (await focused(page))?.className).toBe('once');
    expect(await inView(page, 'svc-wh-endpoint-secret .once')).toBe(true);
    const rotated = (await fullSecret(page).textContent())?.trim() ?? '';
    expect((await service.getConfig(PORTAL_AGENCY)).signingSecret.endsWith(rotated.slice(-4))).toBe(true);
    const snippet = (await page.locator('svc-wh-endpoint-secret #snippet').textContent()) ?? '';
    expect(snippet).toContain('  req.headers,\n');
    expect(snippet).not.toContain('x-service-signature');
    await expectNoAxeViolations(page, 'rotated secret on a phone');
    await saveScreenshot(page, 'secret-phone');
    await expectFitsWidth(page, 'rotated secret');
    expectNoPageErrors(session, 'rotated secret');
  });
});
