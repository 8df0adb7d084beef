/**
 * `@svc/webhooks-express/portal`: a router serving a standalone page of the agency portal
 * (`<svc-webhooks-portal>` from `@svc/webhooks-portal`), for hosts that want the page without
 * building one. Needs `@svc/webhooks-portal` installed.
 *
 * @packageDocumentation
 * @module @svc/webhooks-express/portal
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import { InvalidOptionError, WebhookError } from '@svc/webhooks-core';
import { standaloneScriptPath } from '@svc/webhooks-portal/assets';
import express, { type Request, type Response, type Router } from 'express';
import { PACKAGE_NAME } from './errors';
import { WEBHOOK_API_BASE_PATH } from './openapi';

/** Options of {@link createWebhooksPortal}. */
export interface WebhooksPortalOptions {
  /**
   * Where the browser reaches the management API: a path on this host, or an absolute URL
   * (the API's origin is then allowed in the page's `connect-src`).
   * @default '/v1/agency/webhooks'
   */
  apiBase?: string;
  /** The page's title. @default 'Webhooks' */
  title?: string;
  /**
   * Take the agent's token from `#token=…` in the page's address, for development and demos. The
   * fragment never reaches a server, and the page removes it from the address bar. In production,
   * sign agents in with the host's session cookie instead (the router's `readToken`).
   * @default false
   */
  tokenFromFragment?: boolean;
  /**
   * A stylesheet the page links after its own, for theming through the portal's CSS custom
   * properties and `::part`: a path on this host or an absolute URL.
   * @default none
   */
  stylesheet?: string;
  /**
   * The signed-in agent's agency id, read from the request the way the host's `authenticate` reads it.
   * The page passes it to the element (`agency-id`), which shows receivers the full address of the
   * agency's public keys (`GET /public-keys/:agencyId`, for `v1a` signatures). Without it, the address
   * is shown with a placeholder where the id goes. Answering `undefined` does the same for one request.
   * @default none
   */
  agencyId?: (req: Request) => string | undefined | Promise<string | undefined>;
}

/** Served with every page: scripts from this host only, nothing framed elsewhere, no referrer. */
const PAGE_STYLE = `body{margin:0;background:#f4f6fa}main{max-width:960px;margin:0 auto;padding:16px}h1{font:600 1.4rem system-ui,sans-serif;margin:8px 0 16px;color:#1d2330}@media (prefers-color-scheme:dark){body{background:#12151b}h1{color:#e6e9ef}}`;

/** The script's encodings, best first: each compressed once, when the router is made. */
type ScriptEncoding = 'br' | 'gzip' | 'identity';

interface EncodedScript {
  body: Buffer;
  etag: string;
}

/**
 * An Express router serving a standalone page of `<svc-webhooks-portal>` at its mount point and the
 * element's script beside it (`portal.js`). Mount it where agents should find their webhook settings;
 * the management API must be mounted too (at `apiBase`).
 *
 * Needs `@svc/webhooks-portal` installed beside this package.
 *
 * @throws {InvalidOptionError} when an option is of the wrong kind
 * @throws {WebhookError} with code `portal_assets_missing` when the portal's script is not on disk
 * @example
 * ```ts
 * import { createWebhooksPortal } from '@svc/webhooks-express/portal';
 * app.use('/v1/agency/webhooks', createWebhooksRouter({ service, authenticate, readToken }));
 * app.use('/settings/webhooks', createWebhooksPortal({ title: 'Acme webhooks' }));
 * ```
 */
export function createWebhooksPortal(options: WebhooksPortalOptions = {}): Router {
  const apiBase = stringOption(options, 'apiBase') ?? WEBHOOK_API_BASE_PATH;
  const title = stringOption(options, 'title') ?? 'Webhooks';
  const stylesheet = stringOption(options, 'stylesheet');
  if (options.tokenFromFragment !== undefined && typeof options.tokenFromFragment !== 'boolean') {
    refuse('tokenFromFragment', 'tokenFromFragment must be a boolean.');
  }
  const readAgencyId = options.agencyId;
  if (readAgencyId !== undefined && typeof readAgencyId !== 'function') {
    refuse('agencyId', 'agencyId must be a function of the request.');
  }
  const scripts = encodeScript(readScript());
  const policy = contentSecurityPolicy(apiBase, stylesheet);
  const router = express.Router({ strict: true });
  router.get('/portal.js', (req: Request, res: Response) => {
    const encoding = pickEncoding(req.headers['accept-encoding']);
    const script = scripts[encoding];
    res.set({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
      etag: script.etag,
      vary: 'Accept-Encoding',
      'x-content-type-options': 'nosniff',
    });
    if (encoding !== 'identity') res.set('content-encoding', encoding);
    if (matchesTag(req.headers['if-none-match'], script.etag)) {
      res.status(304).end();
      return;
    }
    res.send(script.body);
  });
  router.get('/', async (req: Request, res: Response) => {
    const base = req.baseUrl;
    const agencyId = readAgencyId === undefined ? undefined : await readAgencyId(req);
    if (agencyId !== undefined && (typeof agencyId !== 'string' || agencyId === '')) {
      throw new TypeError(
        `${PACKAGE_NAME}: createWebhooksPortal: agencyId must answer a non-empty string or undefined.`,
      );
    }
    res.set({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': policy,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    res.send(
      page({
        title,
        apiBase,
        stylesheet,
        scriptUrl: `${base}/portal.js`,
        tokenFromFragment: options.tokenFromFragment === true,
        agencyId,
      }),
    );
  });
  return router;
}

function page(parts: {
  title: string;
  apiBase: string;
  stylesheet: string | undefined;
  scriptUrl: string;
  tokenFromFragment: boolean;
  agencyId: string | undefined;
}): string {
  const link =
    parts.stylesheet === undefined ? '' : `\n<link rel="stylesheet" href="${escapeHtml(parts.stylesheet)}">`;
  const agencyAttribute = parts.agencyId === undefined ? '' : ` agency-id="${escapeHtml(parts.agencyId)}"`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(parts.title)}</title>
<link rel="icon" href="data:,">
<style>${PAGE_STYLE}</style>${link}
<script type="module" src="${escapeHtml(parts.scriptUrl)}"></script>
</head>
<body>
<main>
<h1>${escapeHtml(parts.title)}</h1>
<svc-webhooks-portal api-base="${escapeHtml(parts.apiBase)}"${agencyAttribute}${parts.tokenFromFragment ? ' token-from-fragment' : ''} url-state></svc-webhooks-portal>
</main>
</body>
</html>
`;
}

/**
 * The page runs this host's script only; it talks to the API's origin only. The page's own small
 * stylesheet is inline, hence its hash; the element's styles are constructed stylesheets.
 */
function contentSecurityPolicy(apiBase: string, stylesheet: string | undefined): string {
  const styleHash = createHash('sha256').update(PAGE_STYLE).digest('base64');
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'sha256-${styleHash}'${originOf(stylesheet)}`,
    `connect-src 'self'${originOf(apiBase)}`,
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

function originOf(url: string | undefined): string {
  if (url === undefined || !/^https?:\/\//i.test(url)) return '';
  return ` ${new URL(url).origin}`;
}

/**
 * The script as sent for each encoding, compressed once here rather than per request: brotli at its
 * best quality and gzip at level 9 take a few hundred ms for the whole bundle, once per router. Each
 * encoding has its own entity tag, as a cache must not give a gzip body to a client that asked for brotli.
 */
function encodeScript(script: string): Record<ScriptEncoding, EncodedScript> {
  const plain = Buffer.from(script, 'utf8');
  const tag = createHash('sha256').update(plain).digest('base64url').slice(0, 27);
  return {
    br: {
      body: brotliCompressSync(plain, {
        params: {
          [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
          [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
          [zlib.BROTLI_PARAM_SIZE_HINT]: plain.length,
        },
      }),
      etag: `"${tag}-br"`,
    },
    gzip: { body: gzipSync(plain, { level: 9 }), etag: `"${tag}-gz"` },
    identity: { body: plain, etag: `"${tag}"` },
  };
}

/**
 * The best encoding `Accept-Encoding` allows: brotli, then gzip, else none. A coding with `q=0` is
 * refused, and so is one only `*` names with `q=0`; `*` with a weight allows both.
 */
function pickEncoding(header: string | string[] | undefined): ScriptEncoding {
  const weights = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (name === '') continue;
    const q = params
      .map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1])
      .find((value) => value !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    weights.set(name, Number.isNaN(weight) ? 0 : weight);
  }
  const weightOf = (name: string) => weights.get(name) ?? weights.get('*') ?? 0;
  const br = weightOf('br');
  const gzip = weightOf('gzip');
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return 'identity';
}

/** Whether `If-None-Match` names `etag` (or is `*`), weak or strong. */
function matchesTag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

function readScript(): string {
  if (!existsSync(standaloneScriptPath)) {
    throw new WebhookError(
      'portal_assets_missing',
      `${PACKAGE_NAME}: the portal's script is missing (${standaloneScriptPath}). Install @svc/webhooks-portal, or build it in a workspace.`,
    );
  }
  return readFileSync(standaloneScriptPath, 'utf8');
}

function stringOption(
  options: WebhooksPortalOptions,
  name: 'apiBase' | 'title' | 'stylesheet',
): string | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') refuse(name, `${name} must be a non-empty string.`);
  return value;
}

function refuse(option: keyof WebhooksPortalOptions, message: string): never {
  throw new InvalidOptionError(PACKAGE_NAME, option, `createWebhooksPortal: ${message}`);
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}
