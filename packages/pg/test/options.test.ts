import { InvalidOptionError } from '@svc/webhooks-core';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPgQueue, createPgStore, createPgWebhooks, getSchemaVersion, migrate } from '../src/index';

// Every check here runs before anything touches the database: the pool never connects.
const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
afterAll(() => pool.end());

/** Calls `run` and returns what it threw or rejected with. */
async function failureOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

const factories = {
  createPgStore: (options: unknown) => createPgStore(options as never),
  createPgQueue: (options: unknown) => createPgQueue(options as never),
  createPgWebhooks: (options: unknown) => createPgWebhooks(options as never),
  migrate: (options: unknown) => migrate(options as never),
  getSchemaVersion: (options: unknown) => getSchemaVersion(options as never),
};

describe('@svc/webhooks-pg options', () => {
  it('`listen` with `notify: false` is refused, naming the option', async () => {
    const failure = await failureOf(() =>
      createPgWebhooks({ pool, notify: false, listen: 'postgres://direct@127.0.0.1/db' }),
    );
    expect(failure).toBeInstanceOf(InvalidOptionError);
    expect(failure).toMatchObject({ code: 'invalid_option', option: 'listen' });
    expect((failure as Error).message).toContain('notify: false');
  });

  it.each([[''], [42], [true]])('`listen: %j` is refused, naming what it takes', async (listen) => {
    const failure = await failureOf(() => createPgQueue({ pool, listen: listen as never }));
    expect(failure).toMatchObject({ code: 'invalid_option', option: 'listen' });
    expect((failure as Error).message).toContain('connection string');
  });

  for (const [name, call] of Object.entries(factories)) {
    it(`${name}(pool) is refused with a message showing ${name}({ pool })`, async () => {
      const failure = await failureOf(() => call(pool));
      expect(failure).toBeInstanceOf(InvalidOptionError);
      expect(failure).toMatchObject({ code: 'invalid_option', option: 'pool' });
      expect((failure as Error).message).toMatch(/^@svc\/webhooks-pg: /);
      expect((failure as Error).message).toContain(`call ${name}({ pool }), not ${name}(pool)`);
    });

    it(`${name} without a pool is refused, naming the option`, async () => {
      const failure = await failureOf(() => call({ schema: 'webhooks' }));
      expect(failure).toMatchObject({ code: 'invalid_option', option: 'pool' });
      expect((failure as Error).message).toMatch(
        /^@svc\/webhooks-pg: .*needs a node-postgres pool as `pool`/,
      );
    });

    it(`${name} refuses a schema name that is not a plain identifier`, async () => {
      const failure = await failureOf(() => call({ pool, schema: 'a;drop' }));
      expect(failure).toMatchObject({ code: 'invalid_option', option: 'schema' });
      expect((failure as Error).message).toMatch(
        /^@svc\/webhooks-pg: Invalid PostgreSQL schema name "a;drop"/,
      );
    });
  }

  it('queue.claim refuses a lease that is not a positive number of ms', async () => {
    const queue = createPgQueue({ pool, notify: false });
    for (const leaseMs of [0, -1, Number.NaN]) {
      await expect(queue.claim({ limit: 1, leaseMs, now: 0 }), String(leaseMs)).rejects.toMatchObject({
        code: 'invalid_option',
        option: 'leaseMs',
      });
    }
  });

  it('queue.claim refuses a perAgencyLimit that is not a whole number of claims, 1 or more', async () => {
    const queue = createPgQueue({ pool, notify: false });
    for (const perAgencyLimit of [0, -2, 1.5, Number.NaN]) {
      const failure = await failureOf(() =>
        queue.claim({ limit: 1, leaseMs: 1_000, now: 0, perAgencyLimit }),
      );
      expect(failure, String(perAgencyLimit)).toBeInstanceOf(InvalidOptionError);
      expect(failure).toMatchObject({ code: 'invalid_option', option: 'perAgencyLimit' });
      expect((failure as Error).message).toMatch(/^@svc\/webhooks-pg: claim\(\) needs `perAgencyLimit`/);
    }
  });
});
