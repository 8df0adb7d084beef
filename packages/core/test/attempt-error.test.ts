import { describe, expect, it } from 'vitest';
import type { AttemptErrorKind } from '../src/delivery/attempt-outcome';
import { classifyRequestError, isInvalidArgument, tenantMessage } from '../src/transport/attempt-error';

function coded(code: string, message = `failure ${code}`, cause?: unknown): Error {
  const error = new Error(message, cause === undefined ? undefined : { cause });
  return Object.assign(error, { code });
}

describe('classifyRequestError', () => {
  const cases: Array<[string, unknown, AttemptErrorKind]> = [
    ['ECONNREFUSED', coded('ECONNREFUSED'), 'connect'],
    ['ECONNRESET', coded('ECONNRESET'), 'connect'],
    ['undici socket closed', coded('UND_ERR_SOCKET', 'other side closed'), 'connect'],
    ['EHOSTUNREACH', coded('EHOSTUNREACH'), 'connect'],
    ['ENOTFOUND', coded('ENOTFOUND'), 'dns'],
    ['EAI_AGAIN', coded('EAI_AGAIN'), 'dns'],
    ['connect timeout', coded('UND_ERR_CONNECT_TIMEOUT'), 'timeout'],
    ['headers timeout', coded('UND_ERR_HEADERS_TIMEOUT'), 'timeout'],
    ['body timeout', coded('UND_ERR_BODY_TIMEOUT'), 'timeout'],
    ['self-signed leaf', coded('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls'],
    ['self-signed in chain', coded('SELF_SIGNED_CERT_IN_CHAIN'), 'tls'],
    ['unknown issuer', coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'tls'],
    ['expired', coded('CERT_HAS_EXPIRED'), 'tls'],
    ['wrong name', coded('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls'],
    ['TLS to a plain-HTTP port', coded('EPROTO'), 'tls'],
    ['OpenSSL error', coded('ERR_SSL_WRONG_VERSION_NUMBER'), 'tls'],
    ['code only in the cause', new Error('fetch failed', { cause: coded('ECONNREFUSED') }), 'connect'],
    [
      'happy-eyeballs AggregateError',
      new AggregateError([coded('ECONNREFUSED'), coded('ENETUNREACH')], ''),
      'connect',
    ],
    ['TLS failure followed by a reset', coded('ECONNRESET', 'reset', coded('CERT_HAS_EXPIRED')), 'tls'],
    ['no code at all', new Error('something odd'), 'connect'],
    ['not an Error', 'weird', 'connect'],
  ];
  it.each(cases)('%s -> %s', (_name, error, kind) => {
    expect(classifyRequestError(error).kind).toBe(kind);
  });

  it('tells the agency a fixed text and keeps the raw message, from inside an AggregateError, as detail', () => {
    const error = new AggregateError([coded('ECONNREFUSED', 'connect ECONNREFUSED 203.0.113.9:443')], '');
    const classified = classifyRequestError(error);
    expect(classified.message).toBe(tenantMessage('connect'));
    expect(classified.message).not.toContain('203.0.113.9');
    expect(classified.detail).toContain('connect ECONNREFUSED 203.0.113.9:443');
  });
});

describe('isInvalidArgument', () => {
  it('recognises undici argument errors only', () => {
    expect(isInvalidArgument(coded('UND_ERR_INVALID_ARG'))).toBe(true);
    expect(isInvalidArgument(coded('ECONNREFUSED'))).toBe(false);
    expect(isInvalidArgument('UND_ERR_INVALID_ARG')).toBe(false);
  });
});
