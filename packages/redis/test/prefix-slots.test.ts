import { InvalidOptionError } from '@svc/webhooks-core';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { hashTag } from '../src/connection/key-slot';
import { createRedisQueue, createRedisStore, createRedisWebhooks } from '../src/index';

// A client that never connects: construction is all these tests exercise.
const idle = new Redis({ lazyConnect: true });
afterAll(() => idle.disconnect());

const factories = {
  createRedisStore: (prefix: string) => createRedisStore({ redis: idle, prefix }),
  createRedisQueue: (prefix: string) => createRedisQueue({ redis: idle, prefix }),
  createRedisWebhooks: (prefix: string) => createRedisWebhooks({ redis: idle, prefix }),
};

function refusal(make: () => unknown): InvalidOptionError {
  try {
    make();
  } catch (error) {
    if (error instanceof InvalidOptionError) return error;
    throw error;
  }
  throw new Error('construction was not refused');
}

describe('a prefix whose keys cannot share one slot', () => {
  for (const [name, make] of Object.entries(factories)) {
    it.each(['{}:', '{}{app}:', 'a{}b:', 'x{}'])(
      `${name} refuses %j, naming the option and why`,
      (prefix) => {
        const error = refusal(() => make(prefix));
        expect(error.option).toBe('prefix');
        expect(error.message).toContain(`'${prefix}'`);
        expect(error.message).toContain('CROSSSLOT');
        expect(error.message).toContain("'{whk}:'");
      },
    );

    it.each(['whk:', '', '{app}:', '{app}{x}:', 'a{b:', 'a}b{c}:', 'x}{a}:'])(
      `${name} accepts %j`,
      async (prefix) => {
        const made = make(prefix) as { close(): Promise<void> };
        await made.close();
      },
    );
  }

  it('follows Redis: the first {…} pair counts, and only when it holds something', () => {
    expect(hashTag('{app}:{store}:d:1')).toBe('app');
    expect(hashTag('whk:{store}:d:1')).toBe('store');
    expect(hashTag('{}:{store}:d:1')).toBeNull();
    expect(hashTag('{}{app}:{store}:d:1')).toBeNull();
    expect(hashTag('a{b:{store}:d:1')).toBe('b:{store');
    expect(hashTag('no tag at all')).toBeNull();
  });
});

describe('durability', () => {
  it.each([
    [{ replicas: 0 }, 'durability.replicas'],
    [{ replicas: 1.5 }, 'durability.replicas'],
    [{ replicas: 1, timeoutMs: 0 }, 'durability.timeoutMs'],
  ])('refuses %j', (durability, option) => {
    expect(refusal(() => createRedisStore({ redis: idle, durability })).option).toBe(option);
    expect(refusal(() => createRedisQueue({ redis: idle, durability })).option).toBe(option);
    expect(refusal(() => createRedisWebhooks({ redis: idle, durability })).option).toBe(option);
  });
});
