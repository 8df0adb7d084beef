import { WebhookVerificationError } from './errors';

/**
 * Name of the header that carries the signature, lower-cased as Node and `Headers` present it.
 * The service sends it as `X-Service-Signature`; header names are case-insensitive.
 */
export const SIGNATURE_HEADER = 'x-service-signature';

/** The signature header, split into its parts. */
export interface ParsedSignatureHeader {
  /** Value of `t`: epoch milliseconds at which the delivery was signed. */
  timestamp: number;
  /** Every `v1` value in header order, as hex text (any case). */
  signatures: string[];
}

/** What the verifiers need beyond the public shape: `t` exactly as sent, since that text is what was signed. */
export interface SignatureHeaderParts extends ParsedSignatureHeader {
  timestampText: string;
}

/** What a successful signature check returns. */
export interface VerifiedSignature {
  /**
   * The verified `t`: epoch milliseconds at which the service signed the delivery. For a Standard
   * Webhooks delivery, `webhook-timestamp` (seconds) × 1000.
   */
  timestamp: number;
  /** The verified `webhook-id`, when the delivery was verified by its Standard Webhooks headers. */
  id?: string;
}

/** Header values as Node, Express and `Headers` hand them over. */
export type SignatureHeaderInput = string | readonly string[] | null | undefined;

// 15 digits reach the year 33658 and stay below Number.MAX_SAFE_INTEGER, so the number is exact.
const MAX_TIMESTAMP_DIGITS = 15;

/**
 * Parses `t=<ms>,v1=<hex>[,v1=<hex>…]` as the spec says: split on commas, then on the first `=`.
 * Spaces and tabs around parts, keys and values are ignored, as are empty parts and unknown keys
 * (`v0=`, `v2=`), so the scheme can grow. `t` must appear once, as ASCII digits; each `v1` must be hex.
 *
 * @throws {@link WebhookVerificationError} with code `missing_header`, `malformed_header`,
 * `missing_timestamp` or `missing_signature`; never anything else, whatever the input.
 * @example
 * ```ts
 * parseSignatureHeader('t=1700000000000,v1=5f2b…');
 * // { timestamp: 1700000000000, signatures: ['5f2b…'] }
 * ```
 */
export function parseSignatureHeader(header: SignatureHeaderInput): ParsedSignatureHeader {
  const { timestamp, signatures } = parseSignatureHeaderParts(header);
  return { timestamp, signatures };
}

/** {@link parseSignatureHeader}, also returning the `t` text for the signed string. */
export function parseSignatureHeaderParts(header: SignatureHeaderInput): SignatureHeaderParts {
  const text = headerText(header);
  const found: PartsFound = { timestampText: undefined, signatures: [] };
  // Scans part by part with indexOf instead of split() and slices only the values it keeps: this runs
  // on every delivery, and the scan costs a fraction of what split/trim/slice of every piece costs.
  let start = 0;
  while (start <= text.length) {
    const comma = text.indexOf(',', start);
    const end = comma === -1 ? text.length : comma;
    readPart(text, start, end, found);
    start = end + 1;
  }
  return {
    timestamp: readTimestamp(found.timestampText),
    timestampText: found.timestampText as string,
    signatures: present(found.signatures),
  };
}

/** The header value for one signature: `t=<ms>,v1=<hex>`. */
export function formatSignatureHeader(timestamp: number, signatureHex: string): string {
  return `t=${timestamp},v1=${signatureHex}`;
}

interface PartsFound {
  timestampText: string | undefined;
  signatures: string[];
}

/** Reads the part `text[from, to)`: `key=value` with optional spaces, or nothing but spaces. */
function readPart(text: string, from: number, to: number, found: PartsFound): void {
  const start = skipSpaces(text, from, to);
  const end = skipSpacesBack(text, start, to);
  if (start === end) return;
  const eq = text.indexOf('=', start);
  const keyEnd = eq === -1 || eq >= end ? start : skipSpacesBack(text, start, eq);
  if (keyEnd === start) throw malformed(`the part "${excerpt(text.slice(start, end))}" is not key=value`);
  const valueStart = skipSpaces(text, eq + 1, end);
  if (isKey(text, start, keyEnd, 't')) {
    if (found.timestampText !== undefined) throw malformed('it has more than one t= part');
    found.timestampText = text.slice(valueStart, end);
  } else if (isKey(text, start, keyEnd, 'v1')) {
    const value = text.slice(valueStart, end);
    if (!HEX.test(value)) throw malformed(`the v1 value "${excerpt(value)}" is not hex`);
    found.signatures.push(value);
  }
}

function isKey(text: string, start: number, end: number, key: string): boolean {
  return end - start === key.length && text.startsWith(key, start);
}

// A regular expression runs as compiled native code: several times faster than a charCodeAt loop here.
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

function headerText(header: SignatureHeaderInput): string {
  // A header repeated on the wire reaches Node as one value joined with ", "; some stacks give an array.
  const text = typeof header === 'string' ? header : isStringArray(header) ? header.join(',') : undefined;
  if (text === undefined && header !== undefined && header !== null) {
    throw malformed(`it is a ${typeof header}, not a string`);
  }
  if (text === undefined || skipSpaces(text, 0, text.length) === text.length) {
    throw new WebhookVerificationError(
      'missing_header',
      'The X-Service-Signature header is missing or empty. Read it from the request headers ' +
        '(Node lower-cases names: req.headers["x-service-signature"]) and pass its value.',
    );
  }
  return text;
}

function isStringArray(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function readTimestamp(text: string | undefined): number {
  if (text === undefined) {
    throw new WebhookVerificationError('missing_timestamp', 'The X-Service-Signature header has no t= part.');
  }
  if (text.length === 0 || text.length > MAX_TIMESTAMP_DIGITS || !isDigits(text)) {
    throw malformed(`t="${excerpt(text)}" is not an integer number of epoch milliseconds`);
  }
  return Number(text);
}

function present(signatures: string[]): string[] {
  if (signatures.length === 0) {
    throw new WebhookVerificationError(
      'missing_signature',
      'The X-Service-Signature header has no v1= part.',
    );
  }
  return signatures;
}

function malformed(reason: string): WebhookVerificationError {
  return new WebhookVerificationError(
    'malformed_header',
    `The X-Service-Signature header is malformed: ${reason}. Expected "t=<epoch ms>,v1=<hex HMAC-SHA256>".`,
  );
}

/** Index of the first character in `[from, to)` that is not HTTP optional whitespace (space, tab). */
function skipSpaces(text: string, from: number, to: number): number {
  let i = from;
  while (i < to && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** End of `[from, to)` once trailing spaces and tabs are dropped. */
function skipSpacesBack(text: string, from: number, to: number): number {
  let i = to;
  while (i > from && isSpace(text.charCodeAt(i - 1))) i--;
  return i;
}

// Only space and tab, the HTTP notion of optional whitespace, so every language's port trims the same set.
function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function isDigits(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

// Header content is attacker-controlled and lands in 401 bodies and logs: quote only a short piece.
function excerpt(text: string): string {
  return text.length > 24 ? `${text.slice(0, 24)}…` : text;
}
