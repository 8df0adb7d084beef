import { InvalidOptionError } from '@svc/webhooks-core';
import { WebhookVerificationError } from '@svc/webhooks-verify';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { applyAssignments, parseAssignment } from '../src/assignments';
import { EXIT_CODES, exitCodeOf, ManagementApiError, RequestFailedError } from '../src/exit-codes';
import { renderProgressBar } from '../src/progress';
import { parseTime } from '../src/values';

const NOW = 1_767_225_600_000;

describe('parseAssignment', () => {
  it.each([
    ['metadata.jobNumber=7', ['metadata', 'jobNumber'], 7],
    ['metadata.reason=Leaking tap', ['metadata', 'reason'], 'Leaking tap'],
    ['metadata.reason="007"', ['metadata', 'reason'], '007'],
    ['parentEntityId=null', ['parentEntityId'], null],
    ['metadata.rating={"a":1}', ['metadata', 'rating'], { a: 1 }],
    ['metadata.note=a=b', ['metadata', 'note'], 'a=b'],
    ['metadata.note=', ['metadata', 'note'], ''],
  ])('%s', (text, path, value) => {
    expect(parseAssignment(text)).toEqual({ path, value });
  });

  it.each(['jobNumber', '=7', 'metadata..x=1', 'metadata.__proto__.polluted=1', 'constructor=1'])(
    'refuses %j',
    (text) => {
      expect(() => parseAssignment(text)).toThrow(InvalidOptionError);
    },
  );
});

describe('applyAssignments', () => {
  const envelope = { webhookId: 'w', metadata: { jobId: 'j', rating: { review: 'ok' } }, attempt: 1 };

  it('changes a copy, keeping the key order and adding new keys last', () => {
    const changed = applyAssignments(envelope, [
      parseAssignment('metadata.rating.review=great'),
      parseAssignment('metadata.extra=1'),
    ]);
    expect(changed).toEqual({
      webhookId: 'w',
      metadata: { jobId: 'j', rating: { review: 'great' }, extra: 1 },
      attempt: 1,
    });
    expect(Object.keys(changed.metadata as object)).toEqual(['jobId', 'rating', 'extra']);
    expect(envelope.metadata.rating.review).toBe('ok');
  });

  it('refuses to go through a value that is not an object', () => {
    expect(() => applyAssignments(envelope, [parseAssignment('attempt.x=1')])).toThrow(
      expect.objectContaining({
        option: 'set',
        message: expect.stringContaining('attempt is not an object'),
      }),
    );
  });
});

describe('parseTime', () => {
  it.each([
    ['1767225600000', NOW],
    ['2026-01-01', Date.parse('2026-01-01')],
    ['2026-01-01T08:00:00Z', Date.parse('2026-01-01T08:00:00Z')],
    ['90m', NOW - 90 * 60_000],
    ['24h', NOW - 86_400_000],
    ['7d', NOW - 7 * 86_400_000],
    ['2w', NOW - 14 * 86_400_000],
  ])('%s', (text, expected) => {
    expect(parseTime('since', text, NOW)).toBe(expected);
  });

  it.each(['1767225600', 'yesterday', '2026-13-45', '-5h', ''])('refuses %j, naming the option', (text) => {
    expect(() => parseTime('since', text, NOW)).toThrow(expect.objectContaining({ option: 'since' }));
  });
});

describe('renderProgressBar', () => {
  it.each([
    [0, 4, '[------------------------] 0/4'],
    [1, 4, '[######------------------] 1/4'],
    [4, 4, '[########################] 4/4'],
    [0, 0, '[########################] 0/0'],
    [9, 4, '[########################] 9/4'],
  ])('%i of %i', (done, total, expected) => {
    expect(renderProgressBar(done, total)).toBe(expected);
  });
});

describe('exitCodeOf', () => {
  it.each([
    ['help', new CommanderError(0, 'commander.helpDisplayed', ''), EXIT_CODES.ok],
    ['an unknown option', new CommanderError(1, 'commander.unknownOption', ''), EXIT_CODES.usage],
    ['a bad option value', new InvalidOptionError('@svc/webhooks-cli', 'since', 'x'), EXIT_CODES.usage],
    ['a secret verify refuses', new WebhookVerificationError('invalid_secret', 'x'), EXIT_CODES.usage],
    ['no answer', new RequestFailedError('x'), EXIT_CODES.network],
    ['an API refusal', new ManagementApiError('x', { status: 404, code: 'not_found' }), EXIT_CODES.api],
    ['anything else', new TypeError('x'), EXIT_CODES.internal],
  ])('%s', (_name, error, code) => {
    expect(exitCodeOf(error)).toBe(code);
  });
});
