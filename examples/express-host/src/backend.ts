import {
  createMemoryQueue,
  createMemoryStore,
  type DeliveryQueue,
  type WebhookStore,
} from '@svc/webhooks-core';

/** Where the host keeps configurations and deliveries. */
export type BackendKind = 'memory' | 'pg' | 'redis';

/** An opened store and queue, and how to close what was opened for them. */
export interface HostBackend {
  kind: BackendKind;
  store: WebhookStore;
  queue: DeliveryQueue;
  /** Closes the adapters and their connections (after the worker has stopped). */
  close(): Promise<void>;
}

/**
 * Which backend the environment asks for: `WEBHOOKS_STORE` when set, else
 * PostgreSQL when `DATABASE_URL` is set, else Redis when `REDIS_URL` is set,
 * else memory (the default: nothing to install, nothing survives a restart).
 */
export function backendKindFrom(env: NodeJS.ProcessEnv): BackendKind {
  const explicit = env.WEBHOOKS_STORE;
  if (explicit === 'memory' || explicit === 'pg' || explicit === 'redis') return explicit;
  if (explicit) throw new Error(`WEBHOOKS_STORE must be memory, pg or redis; got "${explicit}".`);
  if (env.DATABASE_URL) return 'pg';
  if (env.REDIS_URL) return 'redis';
  return 'memory';
}

/**
 * Opens the backend the environment asks for. The database drivers are loaded
 * only when used, so the in-memory default needs neither server.
 */
export async function openBackend(env: NodeJS.ProcessEnv = process.env): Promise<HostBackend> {
  const kind = backendKindFrom(env);
  if (kind === 'pg') return openPg(requireEnv(env, 'DATABASE_URL'));
  if (kind === 'redis') return openRedis(requireEnv(env, 'REDIS_URL'));
  return { kind, store: createMemoryStore(), queue: createMemoryQueue(), close: async () => {} };
}

function requireEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} must be set for this store.`);
  return value;
}

async function openPg(connectionString: string): Promise<HostBackend> {
  const [{ default: pg }, { createPgWebhooks, migrate }] = await Promise.all([
    import('pg'),
    import('@svc/webhooks-pg'),
  ]);
  const pool = new pg.Pool({ connectionString });
  // Applying migrations at start keeps the example one command; production runs them as a deploy step.
  await migrate({ pool });
  const webhooks = createPgWebhooks({ pool });
  return {
    kind: 'pg',
    store: webhooks.store,
    queue: webhooks.queue,
    async close() {
      await webhooks.close();
      await pool.end();
    },
  };
}

async function openRedis(url: string): Promise<HostBackend> {
  const { createRedisWebhooks } = await import('@svc/webhooks-redis');
  // The linked pair: the insert also enqueues, so an emit is one atomic step.
  const webhooks = createRedisWebhooks({ redis: url });
  return {
    kind: 'redis',
    store: webhooks.store,
    queue: webhooks.queue,
    close: () => webhooks.close(),
  };
}
