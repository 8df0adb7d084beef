import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createHostApp,
  createStaticAuthenticate,
  type HostApp,
  PORTAL_PATH,
  parseStaticTokens,
} from '@svc/example-express-host';
import { FAST_CIRCUIT, FAST_RETRY, startTestReceiver, type TestReceiver } from '@svc/test-support';
import type {
  DeliverySummary,
  PutConfigBody,
  WebhookService,
  WebhookServiceOptions,
  WorkerOptions,
} from '@svc/webhooks-core';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** The agency the portal is signed in as, with an owner's token. */
export const PORTAL_AGENCY = 'agency-portal';
/** The owner's token the harness signs the portal in with. */
export const PORTAL_TOKEN = 'tok_portal';
const TOKEN = PORTAL_TOKEN;

/** Debian's Chromium, which `.ci/run` installs where it is missing. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
/** Browser tests run where Chromium is, and always in CI (where its absence is a failure, not a skip). */
export const canRunBrowser = existsSync(CHROMIUM_PATH) || process.env.CI === 'true';

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

const VIEWPORTS = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 390, height: 844 },
} as const;

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const AXE_SCRIPT = join(ROOT, 'node_modules/axe-core/axe.min.js');

/** Options of {@link openPortal}. */
export interface OpenPortalOptions {
  /** @default 'desktop' (1280 × 900); 'phone' is 390 × 844 */
  viewport?: keyof typeof VIEWPORTS;
  /** Worker options over the harness's (`pollIntervalMs: 20`); `bulkRecovery: false` keeps recoveries running. */
  worker?: WorkerOptions;
  /** The breaker's settings instead of the harness's fast ones (`FAST_CIRCUIT`), such as a long open period. */
  circuitBreaker?: WebhookServiceOptions['circuitBreaker'];
  /** The retry policy instead of the harness's fast one (`FAST_RETRY`), such as a long wait before a retry. */
  retry?: WebhookServiceOptions['retry'];
  /** How long an attempt waits for the receiver's answer, in ms. @default the service's (10 s) */
  transportTimeoutMs?: number;
  /** The browser's own locale (`navigator.language`). @default Chromium's, `en-US` */
  locale?: string;
}

/** A portal page in Chromium, the example host behind it and a real HTTPS receiver. */
export interface PortalSession {
  page: Page;
  host: HostApp;
  service: WebhookService;
  receiver: TestReceiver;
  /** The example host's origin, such as `http://127.0.0.1:40123`. */
  baseUrl: string;
  /**
   * What the page wrote to its console as an error or a warning (with the URL it names), its uncaught
   * errors, and every content security policy violation, in order. Chromium logs every non-2xx answer
   * to a fetch as an error, the expected ones too (`GET /config` is 404 before the endpoint exists).
   */
  consoleProblems: string[];
  /** Creates the agency's configuration pointing at the receiver (through the service, not the page). */
  configure(
    options?: Partial<Omit<PutConfigBody, 'webhookUrl'>>,
  ): Promise<{ signingSecret: string; standardSigningSecret?: string | undefined }>;
  /** Emits the built-in example of `eventType` for the agency; the delivery id, or null when not subscribed. */
  emit(eventType: string, entityId?: string): Promise<string | null>;
  /**
   * Waits until the agency has at least `count` deliveries and none is pending; resolves with them. Failures open the
   * endpoint's circuit breaker, whose deferrals can stretch this to seconds.
   */
  settle(count: number): Promise<DeliverySummary[]>;
  /** Opens the portal page again (a reload signed in afresh). */
  reload(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the example host (memory store, fast retries) with the portal mounted, a local HTTPS receiver
 * it trusts, and Chromium at the portal page signed in as {@link PORTAL_AGENCY}'s owner.
 */
export async function openPortal(options: OpenPortalOptions = {}): Promise<PortalSession> {
  const receiver = await startTestReceiver();
  const host = await createHostApp({
    authenticate: createStaticAuthenticate(parseStaticTokens(`${TOKEN}:${PORTAL_AGENCY}:owner`)),
    service: {
      urlPolicy: { allowPrivateNetworks: true },
      transport: {
        tls: { ca: receiver.ca },
        ...(options.transportTimeoutMs === undefined ? {} : { timeoutMs: options.transportTimeoutMs }),
      },
      retry: options.retry ?? FAST_RETRY,
      circuitBreaker: options.circuitBreaker ?? FAST_CIRCUIT,
      // One session serves a whole suite: the recovery tests count and start far more than an agency's
      // default allowance a minute.
      recoveryLimit: false,
    },
    worker: { pollIntervalMs: 20, ...options.worker },
    portal: true,
    onError: (error) => console.error(error),
  });
  const server: Server = host.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
    const context = await browser.newContext({
      viewport: VIEWPORTS[options.viewport ?? 'desktop'],
      ...(options.locale === undefined ? {} : { locale: options.locale }),
    });
    const page = await context.newPage();
    const consoleProblems: string[] = [];
    page.on('pageerror', (error) => {
      console.error('page error:', error);
      consoleProblems.push(`page error: ${error.message}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        consoleProblems.push(`console ${message.type()}: ${message.text()} (${message.location().url})`);
    });
    // Chromium reports a CSP refusal on the console too; the event names the directive whatever the wording.
    await context.exposeBinding('__svcCspViolation', (_source, text: string) => {
      consoleProblems.push(`CSP violation: ${text}`);
    });
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        const report = (window as unknown as { __svcCspViolation(text: string): void }).__svcCspViolation;
        report(
          `${event.violatedDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`,
        );
      });
    });
    const open = async () => {
      // The page drops the token from its address; from another page, the same address is a fresh load.
      await page.goto('about:blank');
      await page.goto(`${baseUrl}${PORTAL_PATH}/#token=${TOKEN}`);
      await page.locator('svc-webhooks-portal').waitFor();
    };
    await open();
    const openedBrowser = browser;
    return {
      page,
      host,
      service: host.service,
      receiver,
      baseUrl,
      consoleProblems,
      async configure(config = {}) {
        const created = await host.service.putConfig(PORTAL_AGENCY, {
          ...config,
          webhookUrl: receiver.url,
          enabled: config.enabled ?? true,
          subscribedEventTypes: config.subscribedEventTypes ?? ['job_created', 'job_cancelled'],
        });
        return { signingSecret: created.signingSecret, standardSigningSecret: created.standardSigningSecret };
      },
      async emit(eventType, entityId) {
        const example = host.service.events.get(eventType)?.example;
        if (!example) throw new Error(`${eventType} has no example in the catalogue.`);
        const result = await host.service.emit({
          ...example,
          ...(entityId === undefined ? {} : { entityId }),
          eventType,
          agencyId: PORTAL_AGENCY,
        } as Parameters<WebhookService['emit']>[0]);
        return result?.deliveryId ?? null;
      },
      async settle(count) {
        const deadline = Date.now() + 30_000;
        for (;;) {
          const { deliveries } = await host.service.listDeliveries(PORTAL_AGENCY, { limit: 100 });
          if (deliveries.length >= count && deliveries.every((delivery) => delivery.status !== 'pending'))
            return deliveries;
          if (Date.now() > deadline)
            throw new Error(`Deliveries did not settle: ${JSON.stringify(deliveries)}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
      reload: open,
      async close() {
        await openedBrowser.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await host.close();
        await receiver.close();
      },
    };
  } catch (error) {
    await browser?.close();
    server.close();
    await host.close();
    await receiver.close();
    throw error;
  }
}

/** Polls `condition` every 50 ms until it holds; fails the test after 10 s, naming `what`. */
export async function waitUntil(what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The message of the API's `internal_error` that {@link failRequests} answers with. */
export const INTERNAL_ERROR_MESSAGE = 'Something went wrong on our side.';

/** Answers the page's requests to `url` (a glob) with a 500 `internal_error`, until `page.unrouteAll()`. */
export async function failRequests(page: Page, url: string): Promise<void> {
  await page.route(url, (route) =>
    route.fulfill({
      status: 500,
      contentType: 'application/json',
      body: JSON.stringify({ error: { code: 'internal_error', message: INTERNAL_ERROR_MESSAGE } }),
    }),
  );
}

/** The element with focus, looking through the open shadow roots: its tag, id, class and text. */
export function focused(
  page: Page,
): Promise<{ tag: string; id: string; className: string; text: string } | null> {
  return page.evaluate(() => {
    let active: Element | null = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    if (!active) return null;
    return {
      tag: active.tagName.toLowerCase(),
      id: active.id,
      className: active.className,
      text: (active.textContent ?? '').replace(/\s+/g, ' ').trim(),
    };
  });
}

/** Whether the element `locator` finds has the focus within its own (shadow) root. */
export function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate(
    (element) => (element.getRootNode() as Document | ShadowRoot).activeElement === element,
  );
}

/** Runs axe-core over the page, shadow roots included, and fails with every violation it finds. */
export async function expectNoAxeViolations(page: Page, label: string): Promise<void> {
  // Evaluated rather than added as a <script>: the page's content security policy runs its own scripts only.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(AXE_SCRIPT, 'utf8'));
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    const result = await axe.run(document);
    return result.violations.map((violation) => ({
      id: violation.id,
      help: violation.help,
      targets: violation.nodes.map((node) => JSON.stringify(node.target)),
    }));
  });
  expect(violations, `axe violations in ${label}`).toEqual([]);
}

/** The {@link PortalSession.consoleProblems} never expected (Chromium's own line for a CSP refusal too). */
const PAGE_ERROR = /^(CSP violation|page error):|Content Security Policy/;

/**
 * Fails with every content security policy violation (an inline style or script the page's policy
 * blocked) and every uncaught error the page reported since it opened. Other console errors are left
 * alone: Chromium logs each non-2xx answer to a fetch as one, the expected ones too.
 */
export function expectNoPageErrors(session: PortalSession, label: string): void {
  const problems = session.consoleProblems.filter((problem) => PAGE_ERROR.test(problem));
  expect(problems, `CSP violations or uncaught errors in ${label}`).toEqual([]);
}

/**
 * Narrows the page to `width` (320 px: the narrowest phone) and fails when anything is wider than it:
 * the page scrolls sideways, or a tab of the tab strip is cut off or hidden behind a scroll. Puts the
 * viewport back after.
 */
export async function expectFitsWidth(page: Page, label: string, width = 320): Promise<void> {
  const before = page.viewportSize();
  await page.setViewportSize({ width, height: before?.height ?? 800 });
  try {
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
    const measured = await page.evaluate(() => {
      const root = document.querySelector('svc-webhooks-portal')?.shadowRoot;
      const strip = root?.querySelector<HTMLElement>('[role="tablist"]');
      const tabs = [...(root?.querySelectorAll<HTMLElement>('[role="tab"]') ?? [])];
      return {
        page: Math.max(0, document.documentElement.scrollWidth - window.innerWidth),
        // A tab strip that scrolls hides a tab; one that wraps does not.
        strip: strip ? Math.max(0, strip.scrollWidth - strip.clientWidth) : 0,
        tabsOut: tabs
          .filter((tab) => tab.getBoundingClientRect().right > window.innerWidth + 0.5)
          .map((tab) => tab.textContent?.trim()),
      };
    });
    expect(measured, `overflow at ${width} px in ${label}`).toEqual({ page: 0, strip: 0, tabsOut: [] });
  } finally {
    if (before) await page.setViewportSize(before);
  }
}

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: unknown }[];
}

/**
 * Saves a PNG of the page: into `docs/images/portal/` when `UPDATE_PORTAL_SCREENSHOTS=1` (the pictures
 * docs/portal.md shows), else into a temporary folder. Returns its path.
 */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  const folder =
    process.env.UPDATE_PORTAL_SCREENSHOTS === '1' ? join(ROOT, 'docs/images/portal') : screenshotTempFolder();
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

let tempFolder: string | null = null;
function screenshotTempFolder(): string {
  tempFolder ??= mkdtempSync(join(tmpdir(), 'portal-screens-'));
  return tempFolder;
}
