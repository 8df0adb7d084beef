import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRunBrowser, openPortal, type PortalSession } from './browser-harness';

describe.skipIf(!canRunBrowser)('theming the portal from the host page', () => {
  let session: PortalSession;

  beforeAll(async () => {
    session = await openPortal();
  });

  afterAll(async () => {
    await session?.close();
  });

  it('takes its colours from custom properties set on the element, through its shadow roots', async () => {
    const { page } = session;
    const save = page.getByRole('button', { name: 'Create endpoint' });
    await save.waitFor();
    const before = await save.evaluate((button) => getComputedStyle(button).backgroundColor);
    await page.evaluate(() => {
      document
        .querySelector('svc-webhooks-portal')
        ?.style.setProperty('--svc-wh-color-accent', 'rgb(122, 31, 162)');
    });
    expect(await save.evaluate((button) => getComputedStyle(button).backgroundColor)).toBe(
      'rgb(122, 31, 162)',
    );
    expect(before).not.toBe('rgb(122, 31, 162)');
  });

  it('exposes its tabs and panel as parts a host stylesheet can style', async () => {
    const { page } = session;
    // A constructed stylesheet, as a host's own CSS would be (the page's policy refuses inline <style>).
    await page.evaluate(() => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(
        'svc-webhooks-portal::part(tab) { text-transform: uppercase } svc-webhooks-portal::part(panel) { padding-top: 17px }',
      );
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    });
    const tab = page.getByRole('tab', { name: 'Deliveries' });
    expect(await tab.evaluate((element) => getComputedStyle(element).textTransform)).toBe('uppercase');
    const panel = page.getByRole('tabpanel');
    expect(await panel.evaluate((element) => getComputedStyle(element).paddingTop)).toBe('17px');
  });
});
