import { describe, expect, it } from 'vitest';
import type { AttemptErrorKind } from '../src/delivery/attempt-outcome';
import {
  classifyRequestError,
  httpStatusMessage,
  rawDetail,
  tenantMessage,
} from '../src/transport/attempt-error';

function coded(code: string, message: string, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code });
}

/** What a port scan through test sends would read if raw errors reached the agency. */
const NETWORK_DETAIL = /\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|:\d{2,5}\b|E[A-Z]{4,}|internal\.corp/;

describe('what the agency is told per error kind', () => {
  const kinds: Exclude<AttemptErrorKind, 'http_status'>[] = [
    'timeout',
    'dns',
    'connect',
    'tls',
    'private_address',
    'sender_busy',
  ];

  it.each(kinds)('%s has one fixed sentence that says what to check, and no network detail', (kind) => {
    const message = tenantMessage(kind);
    expect(message).toMatch(/^[A-Z].*\.$/);
    expect(message).not.toMatch(NETWORK_DETAIL);
  });

  it('every kind reads differently', () => {
    expect(new Set(kinds.map(tenantMessage)).size).toBe(kinds.length);
  });

  it.each([
    ['refused', coded('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.7:8443'), 'connect'],
    ['reset', coded('ECONNRESET', 'read ECONNRESET'), 'connect'],
    ['not found', coded('ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal.corp'), 'dns'],
    ['connect timeout', coded('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error (10.0.0.7:443)'), 'timeout'],
    [
      'certificate',
      coded(
        'ERR_TLS_CERT_ALTNAME_INVALID',
        "Hostname/IP does not match certificate's altnames: IP: 10.0.0.7",
      ),
      'tls',
    ],
  ] as const)(
    'a %s error is told as its kind’s sentence; the raw text is the detail',
    (_name, error, kind) => {
      const classified = classifyRequestError(error);
      expect(classified).toMatchObject({ kind, message: tenantMessage(kind) });
      expect(classified.message).not.toMatch(NETWORK_DETAIL);
      expect(classified.detail).toContain(error.message);
    },
  );
});

describe('httpStatusMessage(statusCode, location?)', () => {
  it('names the status and what counts as delivered', () => {
    expect(httpStatusMessage(503)).toBe(
      'The receiver answered HTTP 503; only a 2xx status counts as delivered.',
    );
  });

  it('names a redirect’s target and says redirects are not followed', () => {
    const message = httpStatusMessage(301, 'https://new.example/hooks');
    expect(message).toContain('HTTP 301');
    expect(message).toContain('to https://new.example/hooks');
    expect(message).toContain('not followed');
  });

  it('a redirect without a Location still says what happened', () => {
    expect(httpStatusMessage(302)).toMatch(/^The receiver answered HTTP 302, a redirect\. Redirects/);
  });
});

describe('rawDetail(error)', () => {
  it('joins the codes and messages of the causes and aggregated errors, each once', () => {
    const error = new AggregateError(
      [
        coded('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.7:443'),
        coded('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.7:443'),
      ],
      'fetch failed',
    );
    expect(rawDetail(error)).toBe('fetch failed; connect ECONNREFUSED 10.0.0.7:443');
  });

  it('prefixes a code the message does not already name', () => {
    expect(rawDetail(coded('UND_ERR_SOCKET', 'other side closed'))).toBe('UND_ERR_SOCKET: other side closed');
  });

  it('keeps no control characters (part of it can come from the receiver) and stays bounded', () => {
    const detail = rawDetail(new Error(`bad cert CN=evil\u001b[2J\r\n${'x'.repeat(5000)}`));
    expect(detail).not.toMatch(/\p{Cc}/u);
    expect(detail.length).toBeLessThanOrEqual(1000);
  });

  it('describes a thrown non-Error', () => {
    expect(rawDetail('socket hang up')).toBe('socket hang up');
  });
});
