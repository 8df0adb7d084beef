import {
  ConfigNotFoundError,
  DeliveryNotFoundError,
  DeliveryNotReplayableError,
  InvalidOptionError,
  InvalidWebhookUrlError,
  RateLimitedError,
  SchemaNotMigratedError,
  StoreUnavailableError,
  UnknownEventTypeError,
  WebhookError,
  WebhookValidationError,
} from '@svc/webhooks-core';
import { describe, expect, it } from 'vitest';
import { toErrorAnswer } from '../src/error-response';
import { apiErrorCodes, InvalidAgentError, readAgentToken, WebhookApiError } from '../src/index';

describe('toErrorAnswer maps every error through the one code table', () => {
  const deliberate: [string, Error, number, string][] = [
    [
      'validation',
      new WebhookValidationError('Invalid body', [{ path: 'enabled', message: 'Expected boolean' }]),
      400,
      'validation_failed',
    ],
    [
      'invalid metadata',
      new WebhookValidationError('Bad metadata', [], 'invalid_metadata'),
      400,
      'invalid_metadata',
    ],
    ['refused URL', new InvalidWebhookUrlError('not_https', 'Use https.'), 400, 'invalid_webhook_url'],
    ['unknown event type', new UnknownEventTypeError('job_exploded'), 400, 'unknown_event_type'],
    ['missing config', new ConfigNotFoundError('agency-1'), 404, 'config_not_found'],
    ['missing delivery', new DeliveryNotFoundError('d-1'), 404, 'delivery_not_found'],
    ['not replayable', new DeliveryNotReplayableError('d-1', 'pending'), 409, 'delivery_not_replayable'],
    ['router refusal', new WebhookApiError('payload_too_large', 'Too big.'), 413, 'payload_too_large'],
    ['method', new WebhookApiError('method_not_allowed', 'No.'), 405, 'method_not_allowed'],
  ];

  it('rate_limited → 429 with Retry-After in whole seconds, rounded up', () => {
    const answer = toErrorAnswer(new RateLimitedError('agency-1', 'test sends', 4_200));
    expect(answer).toMatchObject({ status: 429, headers: { 'retry-after': '5' }, unexpected: false });
    expect(answer.body.error).toMatchObject({ code: 'rate_limited', details: { retryAfterMs: 4_200 } });
  });

  it('store_unavailable → 503 with Retry-After; the cause (which may name servers) stays out of the body', () => {
    const cause = new Error('Too many Cluster redirections. Last error: MOVED 866 10.0.0.7:7001');
    const answer = toErrorAnswer(new StoreUnavailableError('Redis', 1_500, { cause }));
    expect(answer).toMatchObject({ status: 503, headers: { 'retry-after': '2' }, unexpected: false });
    expect(answer.body.error).toMatchObject({ code: 'store_unavailable', details: { retryAfterMs: 1_500 } });
    expect(JSON.stringify(answer.body)).not.toContain('10.0.0.7');
  });

  it.each(deliberate)('%s → its status, code, message and details', (_name, error, status, code) => {
    const answer = toErrorAnswer(error);
    expect(answer).toEqual({
      status,
      unexpected: false,
      headers: {},
      body: {
        error: {
          code,
          message: error.message,
          ...((error as WebhookError).details === undefined
            ? {}
            : { details: (error as WebhookError).details }),
        },
      },
    });
  });

  it('keeps the URL refusal reason in details', () => {
    expect(
      toErrorAnswer(new InvalidWebhookUrlError('private_address', 'Private.')).body.error.details,
    ).toEqual({
      reason: 'private_address',
    });
  });

  it('matches by code, so an error from a second copy of core maps alike', () => {
    const foreign = Object.assign(new Error('Delivery "x" was not found.'), { code: 'delivery_not_found' });
    expect(toErrorAnswer(foreign).status).toBe(404);
  });

  const unexpected: [string, unknown][] = [
    ['a plain Error', new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2')],
    ['a core error without an HTTP meaning', new SchemaNotMigratedError('run migrate(pool) first')],
    [
      'a WebhookError with an unknown code',
      new WebhookError('store_error', 'relation "deliveries" does not exist'),
    ],
    [
      'an error claiming internal_error',
      Object.assign(new Error('secret internals'), { code: 'internal_error' }),
    ],
    [
      'a host wiring mistake: authenticate returned no agencyId',
      new InvalidAgentError(
        'agencyId',
        'authenticate() returned an agent without an agencyId (secret internals).',
      ),
    ],
    [
      'a host wiring mistake: a bad option',
      new InvalidOptionError(
        '@svc/webhooks-express',
        'bodyLimit',
        'bodyLimit must be positive (secret internals).',
      ),
    ],
    ['a thrown string', 'boom'],
    ['a thrown object with a known code but no Error', { code: 'config_not_found', message: 'x' }],
  ];

  it.each(unexpected)('%s → 500 internal_error with a generic message', (_name, error) => {
    const answer = toErrorAnswer(error);
    expect(answer.status).toBe(500);
    expect(answer.unexpected).toBe(true);
    expect(answer.body.error.code).toBe('internal_error');
    expect(Object.keys(answer.body.error)).toEqual(['code', 'message']);
    expect(answer.body.error.message).not.toMatch(/hunter2|relation|ECONNREFUSED|secret internals|boom|at /);
  });

  it('every code of the table has a 4xx or 5xx status and a summary', () => {
    for (const [code, { status, summary }] of Object.entries(apiErrorCodes)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(status).toBeGreaterThanOrEqual(400);
      expect(summary.length).toBeGreaterThan(10);
    }
  });
});

describe('readAgentToken reads the authorization header raw or as Bearer', () => {
  const cases: [string | undefined, string | null][] = [
    ['tok_1', 'tok_1'],
    ['Bearer tok_1', 'tok_1'],
    ['bearer tok_1', 'tok_1'],
    ['BEARER   tok_1  ', 'tok_1'],
    ['  tok_1  ', 'tok_1'],
    [undefined, null],
    ['', null],
    ['   ', null],
    ['Bearer', null],
    ['Bearer    ', null],
    ['Basic dXNlcjpwYXNz', 'Basic dXNlcjpwYXNz'],
  ];

  it.each(cases)('%j → %j', (header, token) => {
    expect(readAgentToken(header)).toBe(token);
  });
});
