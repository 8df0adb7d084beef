import { createHmac, createPublicKey, verify } from 'node:crypto';
import type { ReceivedRequest } from '@svc/test-support';
import type { Page, Request } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  canRunBrowser,
  expectNoAxeViolations,
  openPortal,
  PORTAL_AGENCY,
  type PortalSession,
  saveScreenshot,
} from './browser-harness';

/*
 * Standard Webhooks in the portal: the signature scheme and Ed25519 choices of the settings form, the
 * secret's whsec_ form, and the public keys with their rotation. Signatures are checked here from the
 * Standard Webhooks rules (contract of issue 36), independently of the service's own signing code.
 */

const WAIT = { timeout: 10_000 };
/** The example host mounts the management API here (WEBHOOK_API_BASE_PATH of @svc/webhooks-express). */
const API_BASE = '/v1/agency/webhooks';
const DAY_MS = 86_400_000;

const fullSecret = (page: Page) => page.locator('svc-wh-endpoint-secret [data-secret="full"]');
const standardSecret = (page: Page) => page.locator('svc-wh-endpoint-secret [data-secret="standard"]');
const maskedSecret = (page: Page) => page.locator('svc-wh-endpoint-secret [data-secret="masked"]');
const keysCard = (page: Page) => page.locator('svc-wh-endpoint-signing-keys');
const keyItems = (page: Page) => keysCard(page).locator('li[data-kid]');
const schemeRadio = (page: Page, name: string) => page.getByRole('radio', { name, exact: true });
const asymmetricBox = (page: Page) => page.getByRole('checkbox', { name: 'Ed25519 signatures (v1a)' });

/** The secret's Standard Webhooks form: `whsec_` + base64 of the UTF-8 bytes of the hex (contract). */
function whsecOf(hex: string): string {
  return `whsec_${Buffer.from(hex, 'utf8').toString('base64')}`;
}

/** `webhook-signature` entries as [version, base64] pairs. */
function signatureEntries(request: ReceivedRequest): [string, string][] {
  const header = String(request.headers['webhook-signature'] ?? '');
  return header
    .split(' ')
    .filter((entry) => entry !== '')
    .map((entry) => {
      const comma = entry.indexOf(',');
      return [entry.slice(0, comma), entry.slice(comma + 1)];
    });
}

/** The content Standard Webhooks signs: `${id}.${seconds}.${rawBody}`. */
function signedContent(request: ReceivedRequest): string {
  return `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.rawBody}`;
}

/** Whether a `v1` entry is the HMAC-SHA256 of the signed content under the hex secret's UTF-8 bytes. */
function standardSignedWith(request: ReceivedRequest, hexSecret: string): boolean {
  const expected = createHmac('sha256', Buffer.from(hexSecret, 'utf8'))
    .update(signedContent(request))
    .digest('base64');
  return signatureEntries(request).some(([version, value]) => version === 'v1' && value === expected);
}

/** Whether a `v1a` entry is an Ed25519 signature of the signed content by the `whpk_` public key. */
function asymmetricSignedBy(request: ReceivedRequest, publicKey: string): boolean {
  const x = Buffer.from(publicKey.slice('whpk_'.length), 'base64').toString('base64url');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  const content = Buffer.from(signedContent(request));
  return signatureEntries(request).some(
    ([version, value]) => version === 'v1a' && verify(null, content, key, Buffer.from(value, 'base64')),
  );
}

/** Whether the `x-service-signature` `t=…,v1=…` is the HMAC-SHA256 hex of `t.body` under the secret. */
function serviceSignedWith(request: ReceivedRequest, secret: string): boolean {
  const parts = new Map(
    String(request.headers['x-service-signature'] ?? '')
      .split(',')
      .map((part) => part.split('=', 2) as [string, string]),
  );
  const expected = createHmac('sha256', secret)
    .update(`${parts.get('t')}.${request.rawBody}`)
    .digest('hex');
  return parts.get('v1') === expected;
}

/** The element with focus, looking through the open shadow roots: its id, class and text. */
function focused(page: Page): Promise<{ id: string; className: string; text: string } | null> {
  return page.evaluate(() => {
    let active: Element | null = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    if (!active) return null;
    return {
      id: active.id,
      className: active.className,
      text: (active.textContent ?? '').replace(/\s+/g, ' ').trim(),
    };
  });
}

/** The next request of `method` to the API path, and its JSON body. */
function nextRequest(page: Page, method: string, path: string): Promise<Request> {
  return page.waitForRequest(
    (request) => request.method() === method && new URL(request.url()).pathname === `${API_BASE}${path}`,
    WAIT,
  );
}

/** Chromium's line for the 404 of `GET /config` before the endpoint exists. */
function isFirstConfigRead(problem: string): boolean {
  return /^console error: Failed to load resource: .* 404 .*\/v1\/agency\/webhooks\/config\)$/.test(problem);
}

async function reloadConfigured(session: PortalSession): Promise<void> {
  await session.reload();
  await session.page.getByRole('heading', { name: 'Endpoint settings' }).waitFor(WAIT);
}

/** Tells the portal the agency's id, as a host does with `agency-id`, for the JWKS address. */
async function setAgencyId(page: Page, agencyId: string): Promise<void> {
  await page.evaluate((id) => {
    (document.querySelector('svc-webhooks-portal') as HTMLElement & { agencyId: string }).agencyId = id;
  }, agencyId);
}

describe.skipIf(!canRunBrowser)('Standard Webhooks signatures in the portal (Chromium)', () => {
  let session: PortalSession | null = null;

  afterEach(async () => {
    // Past the portal's first read of a configuration that does not exist yet (a 404 it shows as the empty
    // state), every call here answers 2xx: any console error, warning or CSP refusal is a fault of the page.
    const problems = (session?.consoleProblems ?? []).filter((problem) => !isFirstConfigRead(problem));
    await session?.close();
    session = null;
    expect(problems).toEqual([]);
  });

  it('creates the endpoint with Standard Webhooks chosen: the PUT carries it, and the whsec_ form shows beside the hex', async () => {
    session = await openPortal();
    const { page, receiver, service } = session;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.baseUrl });
    await page.getByRole('heading', { name: 'No endpoint yet' }).waitFor(WAIT);

    // The spec's signature is the default, and v1a cannot go without the Standard Webhooks headers.
    expect(await schemeRadio(page, 'Service signature (X-Service-Signature)').isChecked()).toBe(true);
    expect(await asymmetricBox(page).isDisabled()).toBe(true);
    expect(await asymmetricBox(page).isChecked()).toBe(false);

    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('checkbox', { name: /^job_created / }).check();
    await schemeRadio(page, 'Standard Webhooks').check();
    expect(await asymmetricBox(page).isEnabled()).toBe(true);
    await expectNoAxeViolations(page, 'settings with Standard Webhooks chosen');

    const put = nextRequest(page, 'PUT', '/config');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    expect((await put).postDataJSON()).toEqual({
      webhookUrl: receiver.url,
      enabled: true,
      subscribedEventTypes: ['job_created'],
      signatureScheme: 'standard',
      asymmetricSignatures: false,
    });

    await standardSecret(page).waitFor(WAIT);
    const hex = (await fullSecret(page).textContent())?.trim() ?? '';
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect((await standardSecret(page).textContent())?.trim()).toBe(whsecOf(hex));
    await page.getByText('Never paste the hex form into a Standard Webhooks library').waitFor();
    await page.getByRole('button', { name: 'Copy whsec_ secret' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(whsecOf(hex));
    await page.getByRole('button', { name: 'Copy hex secret' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(hex);
    await expectNoAxeViolations(page, 'secret with its whsec_ form');

    expect((await service.getConfig(PORTAL_AGENCY)).signatureScheme).toBe('standard');
    // The page's test send is signed the Standard Webhooks way with the secret shown, and only that way.
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.locator('svc-wh-endpoint-test-send .result').getByText('Success').waitFor(WAIT);
    const sent = receiver.requests.at(-1) as ReceivedRequest;
    expect(standardSignedWith(sent, hex)).toBe(true);
    expect(sent.headers['x-service-signature']).toBeUndefined();
    expect(sent.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
  });

  it('rotates the secret under Both: the hex and whsec_ forms, the focus on the first Copy, then masked with a hint', async () => {
    session = await openPortal();
    const { page, receiver, service } = session;
    const { signingSecret: original } = await session.configure({ signatureScheme: 'both' });
    await reloadConfigured(session);
    expect(await schemeRadio(page, 'Both').isChecked()).toBe(true);
    await maskedSecret(page).waitFor(WAIT);
    await page.getByText('toStandardSecret()').waitFor();

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Confirm rotation' }).click();
    await standardSecret(page).waitFor(WAIT);
    const hex = (await fullSecret(page).textContent())?.trim() ?? '';
    expect(hex).not.toBe(original);
    expect((await standardSecret(page).textContent())?.trim()).toBe(whsecOf(hex));
    expect((await focused(page))?.className).toBe('once');
    await page.getByText('A new signing secret was generated.').waitFor();
    await expectNoAxeViolations(page, 'rotated secret with its whsec_ form');

    await service.sendTest(PORTAL_AGENCY);
    const sent = receiver.requests.at(-1) as ReceivedRequest;
    expect(serviceSignedWith(sent, hex)).toBe(true);
    expect(standardSignedWith(sent, hex)).toBe(true);
    expect(standardSignedWith(sent, original)).toBe(false);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    await maskedSecret(page).waitFor(WAIT);
    expect(await standardSecret(page).count()).toBe(0);
  });

  it('turns Ed25519 on: the public key is listed, copyable, and served as JWKS at the address shown', async () => {
    session = await openPortal();
    const { page, receiver, service } = session;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.baseUrl });
    await session.configure();
    await reloadConfigured(session);
    await setAgencyId(page, PORTAL_AGENCY);
    expect(await asymmetricBox(page).isDisabled()).toBe(true);
    expect(await keysCard(page).count()).toBe(0);

    await schemeRadio(page, 'Both').check();
    await asymmetricBox(page).check();
    const put = nextRequest(page, 'PUT', '/config');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect((await put).postDataJSON()).toMatchObject({ signatureScheme: 'both', asymmetricSignatures: true });
    await keyItems(page).first().waitFor(WAIT);

    const stored = await service.getConfig(PORTAL_AGENCY);
    expect(stored.asymmetricSignatures).toBe(true);
    expect(stored.signingPublicKeys).toHaveLength(1);
    const [key] = stored.signingPublicKeys;
    if (!key) throw new Error('no signing key');
    expect(key.publicKey).toMatch(/^whpk_/);
    const item = keysCard(page).locator(`li[data-kid="${key.kid}"]`);
    expect((await item.locator('[data-public-key]').textContent())?.trim()).toBe(key.publicKey);
    expect(await item.locator('.badge').textContent()).toContain('Active');
    await item.getByRole('button', { name: /^Copy public key/ }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key.publicKey);

    // The address shown is the router's, and answers without the management token.
    const jwksUrl = (await keysCard(page).locator('#jwks-url').textContent())?.trim() ?? '';
    expect(jwksUrl).toBe(`${session.baseUrl}${API_BASE}/public-keys/${PORTAL_AGENCY}`);
    const jwks = (await (await fetch(jwksUrl)).json()) as { keys: { kid: string; x: string }[] };
    expect(jwks.keys).toEqual([
      expect.objectContaining({
        kid: key.kid,
        x: Buffer.from(key.publicKey.slice('whpk_'.length), 'base64').toString('base64url'),
      }),
    ]);
    await expectNoAxeViolations(page, 'public keys');

    await service.sendTest(PORTAL_AGENCY);
    expect(asymmetricSignedBy(receiver.requests.at(-1) as ReceivedRequest, key.publicKey)).toBe(true);

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.locator('svc-wh-endpoint-test-send .result').getByText('Success').waitFor(WAIT);
    await saveScreenshot(page, 'signatures-desktop');
  });

  it('rotates the signing key after confirmation, with a 24 h overlap or none; Escape changes nothing', async () => {
    session = await openPortal();
    const { page, receiver, service } = session;
    await session.configure({ signatureScheme: 'standard', asymmetricSignatures: true });
    await reloadConfigured(session);
    await keyItems(page).first().waitFor(WAIT);
    const [first] = (await service.getConfig(PORTAL_AGENCY)).signingPublicKeys;
    if (!first) throw new Error('no signing key');
    const rotate = page.getByRole('button', { name: 'Rotate signing key' });

    await rotate.click();
    await page.getByText('Rotate the signing key?').waitFor();
    expect((await focused(page))?.className).toContain('confirm');
    expect(
      await page.getByRole('radio', { name: 'Keeps signing for 24 hours (recommended)' }).isChecked(),
    ).toBe(true);
    await expectNoAxeViolations(page, 'signing key rotation question');
    await page.keyboard.press('Escape');
    await rotate.waitFor();
    expect((await focused(page))?.text).toBe('Rotate signing key');
    expect((await service.getConfig(PORTAL_AGENCY)).signingPublicKeys).toHaveLength(1);

    // The default overlap: the old key retires in a day, and deliveries carry both signatures meanwhile.
    await rotate.click();
    const overlapped = nextRequest(page, 'POST', '/config/rotate-signing-key');
    const before = Date.now();
    await page.getByRole('button', { name: 'Confirm key rotation' }).click();
    expect((await overlapped).postDataJSON()).toEqual({ overlapMs: DAY_MS });
    await expect.poll(() => keyItems(page).count(), WAIT).toBe(2);
    const afterFirst = (await service.getConfig(PORTAL_AGENCY)).signingPublicKeys;
    const second = afterFirst.find((key) => key.expiresAt === null);
    const retiring = afterFirst.find((key) => key.kid === first.kid);
    if (!second || !retiring) throw new Error(`unexpected keys ${JSON.stringify(afterFirst)}`);
    expect(retiring.expiresAt).toBeGreaterThanOrEqual(before + DAY_MS);
    expect(await keysCard(page).locator(`li[data-kid="${first.kid}"] .badge`).textContent()).toContain(
      'Retiring until',
    );
    await keysCard(page).getByText('The previous key keeps signing until').waitFor();
    expect((await focused(page))?.text).toBe(`Copy public key ${second.kid}`);
    await service.sendTest(PORTAL_AGENCY);
    const during = receiver.requests.at(-1) as ReceivedRequest;
    expect(asymmetricSignedBy(during, second.publicKey)).toBe(true);
    expect(asymmetricSignedBy(during, first.publicKey)).toBe(true);

    // No overlap: the key just replaced stops at once; the one already retiring keeps its day.
    await rotate.click();
    await page.getByRole('radio', { name: 'Stops at once' }).check();
    const immediate = nextRequest(page, 'POST', '/config/rotate-signing-key');
    await page.getByRole('button', { name: 'Confirm key rotation' }).click();
    expect((await immediate).postDataJSON()).toEqual({ overlapMs: 0 });
    await keysCard(page).getByText('The previous key no longer signs.').waitFor(WAIT);
    await expect.poll(() => keysCard(page).locator(`li[data-kid="${second.kid}"]`).count(), WAIT).toBe(0);
    const kids = await keyItems(page).evaluateAll((items) =>
      items.map((item) => item.getAttribute('data-kid')),
    );
    const third = (await service.getConfig(PORTAL_AGENCY)).signingPublicKeys.find(
      (key) => key.expiresAt === null,
    );
    expect(new Set(kids)).toEqual(new Set([third?.kid, first.kid]));
    await expectNoAxeViolations(page, 'public keys after rotations');
  });

  it('switching back to the service signature says the keys go, and saves v1a off', async () => {
    session = await openPortal();
    const { page, service } = session;
    await session.configure({ signatureScheme: 'standard', asymmetricSignatures: true });
    await reloadConfigured(session);
    await keyItems(page).first().waitFor(WAIT);
    expect(await asymmetricBox(page).isChecked()).toBe(true);

    await schemeRadio(page, 'Service signature (X-Service-Signature)').check();
    expect(await asymmetricBox(page).isDisabled()).toBe(true);
    expect(await asymmetricBox(page).isChecked()).toBe(false);
    await page.getByText('Saving turns Ed25519 signatures off').waitFor();
    await expectNoAxeViolations(page, 'settings turning v1a off');

    const put = nextRequest(page, 'PUT', '/config');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect((await put).postDataJSON()).toMatchObject({
      signatureScheme: 'service',
      asymmetricSignatures: false,
    });
    await expect.poll(() => keysCard(page).count(), WAIT).toBe(0);
    const stored = await service.getConfig(PORTAL_AGENCY);
    expect(stored.signatureScheme).toBe('service');
    expect(stored.asymmetricSignatures).toBe(false);
    expect(stored.signingPublicKeys).toEqual([]);
  });

  it('shows an endpoint a receiver disabled with 410 Gone under Standard Webhooks as disabled, saying why', async () => {
    session = await openPortal();
    const { page, receiver, service } = session;
    await session.configure({ signatureScheme: 'standard' });
    receiver.respond(() => ({ status: 410, body: 'gone' }));
    expect(await session.emit('job_created', 'job-gone-1')).not.toBeNull();
    await expect
      .poll(async () => (await service.getEndpointHealth(PORTAL_AGENCY)).state, { timeout: 15_000 })
      .toBe('disabled');
    await reloadConfigured(session);
    await page.locator('svc-wh-endpoint-health [data-state="disabled"]').waitFor(WAIT);
    await page.getByText('the receiver answered 410 Gone').waitFor();
    await expectNoAxeViolations(page, 'endpoint disabled by 410 Gone');
  });

  it('the console watch sees an inline style the page policy refuses (the checks above are not vacuous)', async () => {
    session = await openPortal();
    const { page } = session;
    await page.evaluate(() => document.body.setAttribute('style', 'outline: 1px solid red'));
    await expect
      .poll(
        () => session?.consoleProblems.some((problem) => problem.startsWith('CSP violation: style-src')),
        WAIT,
      )
      .toBe(true);
    session.consoleProblems.length = 0;
  });

  it('fits a phone: the scheme choice, the Ed25519 box and the public keys stack without overflow', async () => {
    session = await openPortal({ viewport: 'phone' });
    const { page } = session;
    await session.configure({ signatureScheme: 'both', asymmetricSignatures: true });
    await reloadConfigured(session);
    await setAgencyId(page, PORTAL_AGENCY);
    await keyItems(page).first().waitFor(WAIT);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await expectNoAxeViolations(page, 'signatures on a phone');
    await saveScreenshot(page, 'signatures-phone');
  });
});
