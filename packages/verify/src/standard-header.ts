import { isBase64 } from './base64';
import { WebhookVerificationError } from './errors';
import type { VerifiedSignature } from './header';

/**
 * The Standard Webhooks headers, lower-cased as Node and `Headers` present them: `webhook-id` (the
 * delivery's stable id), `webhook-timestamp` (epoch **seconds**) and `webhook-signature` (a
 * space-separated list of `v1,<base64 HMAC-SHA256>` and `v1a,<base64 Ed25519>` entries over
 * `<id>.<seconds>.<raw body>`).
 */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/**
 * A request's headers: a `Headers` object (Fetch API) or a record of header name to value as Node and
 * Express give it (`req.headers`). Names are matched without regard to case.
 */
export type StandardHeadersInput =
  | {
      /** The value of header `name`, any case, or `null` when absent: what `Headers.prototype.get` does. */
      get(name: string): string | null;
    }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** What a successful Standard Webhooks signature check returns. */
export interface StandardVerifiedSignature extends VerifiedSignature {
  /** `webhook-timestamp` (epoch seconds) × 1000: epoch milliseconds, like the spec's `t`. */
  timestamp: number;
  /** The verified `webhook-id`: the same on every retry of one delivery. Deduplicate on it. */
  id: string;
}

/** The Standard Webhooks headers of a delivery, split into what verification needs. */
export interface StandardHeaderParts {
  id: string;
  /** `webhook-timestamp` exactly as sent: that text, not a re-formatted number, was signed. */
  secondsText: string;
  seconds: number;
  /** The base64 text of every `v1` entry, in header order. */
  v1: string[];
  /** The base64 text of every `v1a` entry, in header order. */
  v1a: string[];
}

// 15 digits stay below Number.MAX_SAFE_INTEGER, so the number is exact; seconds need 10 until 2286.
const MAX_TIMESTAMP_DIGITS = 15;

/** Whether a verify function's second argument is a headers object rather than a header value. */
export function isHeadersObject(value: unknown): value is StandardHeadersInput {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The value of header `name` (lower case), or `undefined` when absent. A record is read at the
 * lower-cased name first, as Node gives it, and searched without regard to case only when that misses.
 * Several values of one header are joined with `separator`.
 */
export function headerValue(
  headers: StandardHeadersInput,
  name: string,
  separator = ', ',
): string | undefined {
  if (typeof headers.get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, unknown>>;
  let value = record[name];
  if (value === undefined) {
    const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  if (typeof value === 'string' || value === undefined) return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(separator);
  throw malformed(name, `it is a ${value === null ? 'null' : typeof value}, not a string`);
}

/**
 * Reads and checks the three headers. Unknown signature versions (`v2,…`) are skipped, so the scheme can
 * grow; a `v1` or `v1a` entry that is empty or not base64 is malformed.
 *
 * @throws {@link WebhookVerificationError} `missing_header`, `malformed_header` or `missing_signature`
 */
export function parseStandardHeaders(headers: unknown): StandardHeaderParts {
  if (!isHeadersObject(headers)) {
    throw new WebhookVerificationError(
      'missing_header',
      `The headers are a ${headers === null ? 'null' : typeof headers}, not the request's headers. Pass ` +
        'req.headers (Node, Express) or request.headers (Fetch API) as they are.',
    );
  }
  const id = required(headers, STANDARD_WEBHOOK_HEADERS.id);
  const secondsText = required(headers, STANDARD_WEBHOOK_HEADERS.timestamp);
  const signature = required(headers, STANDARD_WEBHOOK_HEADERS.signature, ' ');
  if (secondsText.length > MAX_TIMESTAMP_DIGITS || !isDigits(secondsText)) {
    throw malformed(
      STANDARD_WEBHOOK_HEADERS.timestamp,
      `"${excerpt(secondsText)}" is not an integer number of epoch seconds`,
    );
  }
  return { id, secondsText, seconds: Number(secondsText), ...parseSignatureList(signature) };
}

/** One entry of `webhook-signature`: `<version>,<base64>`. */
export function formatStandardSignature(version: 'v1' | 'v1a', base64: string): string {
  return `${version},${base64}`;
}

function required(headers: StandardHeadersInput, name: string, separator?: string): string {
  const value = headerValue(headers, name, separator);
  if (value === undefined || value.trim() === '') {
    throw new WebhookVerificationError(
      'missing_header',
      `The ${name} header is missing or empty. A Standard Webhooks delivery carries webhook-id, ` +
        'webhook-timestamp and webhook-signature: pass all of the request’s headers (req.headers, ' +
        'request.headers), not a copy that dropped some.',
    );
  }
  return value;
}

/** Reads the space-separated entries of `webhook-signature`, each `<version>,<value>`. */
function parseSignatureList(text: string): { v1: string[]; v1a: string[] } {
  const found: SignatureEntries = { v1: [], v1a: [], unknown: [] };
  for (const entry of text.split(/[ \t]+/)) {
    if (entry !== '') readEntry(entry, found);
  }
  if (found.v1.length + found.v1a.length === 0) throw missingSignature(found.unknown);
  return { v1: found.v1, v1a: found.v1a };
}

interface SignatureEntries {
  v1: string[];
  v1a: string[];
  unknown: string[];
}

function readEntry(entry: string, found: SignatureEntries): void {
  const comma = entry.indexOf(',');
  if (comma <= 0) {
    throw malformed(STANDARD_WEBHOOK_HEADERS.signature, `"${excerpt(entry)}" is not <version>,<signature>`);
  }
  const version = entry.slice(0, comma);
  if (version !== 'v1' && version !== 'v1a') {
    found.unknown.push(excerpt(version));
    return;
  }
  // A header repeated on the wire reaches Node joined with ", ": that comma is not part of the entry.
  const end = entry.length - 1 > comma && entry.endsWith(',') ? entry.length - 1 : entry.length;
  const value = entry.slice(comma + 1, end);
  if (value === '') {
    throw malformed(
      STANDARD_WEBHOOK_HEADERS.signature,
      `the ${version} entry has no signature after the comma`,
    );
  }
  if (!isBase64(value)) {
    throw malformed(
      STANDARD_WEBHOOK_HEADERS.signature,
      `the ${version} value "${excerpt(value)}" is not base64`,
    );
  }
  found[version].push(value);
}

function missingSignature(unknown: readonly string[]): WebhookVerificationError {
  const held =
    unknown.length === 0 ? '' : ` It holds only versions this package does not know: ${unknown.join(', ')}.`;
  return new WebhookVerificationError(
    'missing_signature',
    `The webhook-signature header has no v1 (HMAC-SHA256) or v1a (Ed25519) entry.${held}`,
  );
}

function malformed(name: string, reason: string): WebhookVerificationError {
  const expected =
    name === STANDARD_WEBHOOK_HEADERS.signature
      ? 'Expected space-separated "v1,<base64 HMAC-SHA256>" or "v1a,<base64 Ed25519>" entries.'
      : name === STANDARD_WEBHOOK_HEADERS.timestamp
        ? 'Expected epoch seconds, e.g. "1767225600".'
        : 'Expected a string.';
  return new WebhookVerificationError(
    'malformed_header',
    `The ${name} header is malformed: ${reason}. ${expected}`,
  );
}

function isDigits(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return false;
  }
  return text.length > 0;
}

// Header content is attacker-controlled and lands in 401 bodies and logs: quote only a short piece.
function excerpt(text: string): string {
  return text.length > 24 ? `${text.slice(0, 24)}…` : text;
}
