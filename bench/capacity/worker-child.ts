/*
 * One worker process of the fleet measurement (fleet.ts forks it; not meant to
 * be imported). It builds a service on the PostgreSQL or Redis adapters with
 * their defaults, tells the parent it is ready, starts its worker on `go`, and
 * on `stop` stops it (every attempt recorded) and reports its deliveries and
 * the CPU it used since `go`.
 */
import { createWebhookService, createWorker, type WebhookWorker } from '@svc/webhooks-core';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createPgWebhooks } from '../../packages/pg/src/index';
import { createRedisWebhooks } from '../../packages/redis/src/index';
import type { FleetBackend, FromWorkerChild, ToWorkerChild } from './fleet-messages';
import { ownCpuSeconds } from './process-cpu';

function tell(message: FromWorkerChild): void {
  process.send?.(message);
}

function openAdapters(backend: FleetBackend) {
  if (backend.kind === 'pg') {
    const pool = new pg.Pool({ connectionString: backend.url, max: 16 });
    const adapters = createPgWebhooks({ pool, schema: backend.schema });
    const close = async () => {
      await adapters.close();
      await pool.end();
    };
    return { store: adapters.store, queue: adapters.queue, close };
  }
  const redis = new Redis(backend.url);
  const adapters = createRedisWebhooks({ redis, prefix: backend.prefix });
  const close = async () => {
    await adapters.close();
    await redis.quit();
  };
  return { store: adapters.store, queue: adapters.queue, close };
}

let delivered = 0;
let worker: WebhookWorker | null = null;
let cpuAtGo = 0;

async function start(backend: FleetBackend, ca: string): Promise<() => Promise<void>> {
  const adapters = openAdapters(backend);
  const webhooks = createWebhookService({
    store: adapters.store,
    queue: adapters.queue,
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca } },
    hooks: { onDelivered: () => void delivered++ },
  });
  worker = createWorker(webhooks);
  return async () => {
    await webhooks.close();
    await adapters.close();
  };
}

let close: (() => Promise<void>) | null = null;

process.on('message', (message: ToWorkerChild) => {
  if (message.type === 'start') {
    start(message.backend, message.ca).then(
      (closing) => {
        close = closing;
        tell({ type: 'ready' });
      },
      (error: unknown) => tell({ type: 'failed', message: String(error) }),
    );
  } else if (message.type === 'go') {
    cpuAtGo = ownCpuSeconds();
    void worker?.start();
  } else if (message.type === 'stop') {
    void (async () => {
      await worker?.stop();
      const cpuSeconds = ownCpuSeconds() - cpuAtGo;
      await close?.();
      tell({ type: 'stopped', delivered, cpuSeconds });
    })();
  }
});
process.on('disconnect', () => process.exit(0));
