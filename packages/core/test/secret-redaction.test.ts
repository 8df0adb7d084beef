import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../src/adapter-kit';

const SECRET = 'a1b2'.repeat(16);
const SEALED = `enc:v1:k1:${'QUJD'.repeat(30)}`;

/** An error shaped like ioredis' ReplyError for a failed EVALSHA that carried the secret. */
class ReplyError extends Error {
  command = { name: 'evalsha', args: ['sha', '1', 'whk:{store}:cfg:agency-a', SECRET, 1_700_000_000_000] };
}

describe('redactSecrets(error, secrets)', () => {
  it('rewrites the command arguments a driver attached and keeps the error itself: class, name, other fields', () => {
    const error = new ReplyError(`WRONGTYPE near ${SECRET}`);
    const returned = redactSecrets(error, [SECRET]);
    expect(returned).toBe(error);
    expect(returned).toBeInstanceOf(ReplyError);
    expect(error.command).toEqual({
      name: 'evalsha',
      args: ['sha', '1', 'whk:{store}:cfg:agency-a', '[redacted]', 1_700_000_000_000],
    });
    expect(error.message).toBe('WRONGTYPE near [redacted]');
    expect(error.stack).not.toContain(SECRET);
  });

  it('follows causes, transaction and cluster errors, AggregateError lists and non-enumerable properties', () => {
    const inner = new ReplyError('EXECABORT');
    const node = new ReplyError('MOVED');
    const root = new Error('write failed', { cause: new AggregateError([inner], `with ${SEALED}`) });
    Object.assign(root, { previousErrors: [inner], lastNodeError: node });
    Object.defineProperty(root, 'hidden', {
      value: { detail: `Failing row contains (${SECRET})` },
      enumerable: false,
    });
    redactSecrets(root, [SECRET, SEALED]);
    const text = inspect(root, { depth: Number.POSITIVE_INFINITY, showHidden: true });
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SEALED);
    expect((root as unknown as { hidden: { detail: string } }).hidden.detail).toBe(
      'Failing row contains ([redacted])',
    );
  });

  it('leaves objects that are not errors, arrays or plain data alone, and survives cycles', () => {
    const client = new Map([['secret', SECRET]]);
    const error = Object.assign(new Error('failed'), { client, self: null as unknown });
    error.self = error;
    redactSecrets(error, [SECRET]);
    expect(client.get('secret'), 'a Map (a client, a socket) is not walked').toBe(SECRET);
  });

  it('ignores empty and missing secrets, and redacts a thrown string', () => {
    const error = new Error('nothing to hide');
    expect(redactSecrets(error, ['', undefined]).message).toBe('nothing to hide');
    expect(redactSecrets(`boom ${SECRET}`, [SECRET])).toBe('boom [redacted]');
  });
});
