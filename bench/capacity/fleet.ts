import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ReceiverProcess } from '@svc/test-support';
import type { WebhookService } from '@svc/webhooks-core';
import { Redis } from 'ioredis';
import pg from 'pg';
import { emitBacklog } from '../lib/backlog';
import { freshSchema } from '../pg/bench-database';
import { configureAgencies, createBenchService } from '../pg/svc-setup';
import { removeKeysUnder } from '../redis/redis-keys';
import { waitForDeliveries } from './delivered-wait';
import type { FleetBackend, FromWorkerChild, ToWorkerChild } from './fleet-messages';
import { serverCpuSeconds } from './process-cpu';
import { createRedisBenchService } from './redis-service';

const CHILD = fileURLToPath(new URL('./worker-child.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('./tsconfig.json', import.meta.url));

/** One drain of a backlog by `workers` worker processes. */
export interface FleetRun {
  backend: FleetBackend['kind'];
  workers: number;
  deliveries: number;
  /** From `go` to the receiver having every delivery. */
  seconds: number;
  perSecond: number;
  /** CPU seconds each worker process used from `go` until its worker stopped. */
  workerCpuSeconds: number[];
  /** CPU seconds of the database server over the same window. */
  serverCpuSeconds: number;
}

/** The API side of a fleet run: configures the agencies and emits the backlog, in this process. */
async function openProducer(
  backend: FleetBackend,
  ca: string,
): Promise<{ webhooks: WebhookService; close(): Promise<void> }> {
  if (backend.kind === 'pg') {
    const pool = new pg.Pool({ connectionString: backend.url, max: 16 });
    await freshSchema(pool, backend.schema);
    const { webhooks, adapters } = createBenchService(pool, backend.schema, ca);
    return {
      webhooks,
      async close() {
        await webhooks.close();
        await adapters.close();
        await pool.query(`DROP SCHEMA IF EXISTS "${backend.schema}" CASCADE`);
        await pool.end();
      },
    };
  }
  const redis = new Redis(backend.url);
  const { webhooks, adapters } = createRedisBenchService(redis, backend.prefix, ca);
  return {
    webhooks,
    async close() {
      await webhooks.close();
      await adapters.close();
      await removeKeysUnder(redis, backend.prefix);
      await redis.quit();
    },
  };
}

function send(child: ChildProcess, message: ToWorkerChild): void {
  child.send(message);
}

function next(child: ChildProcess, type: FromWorkerChild['type']): Promise<FromWorkerChild> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`worker process exited (code ${code})`));
    child.once('exit', onExit);
    const onMessage = (message: FromWorkerChild) => {
      if (message.type !== type && message.type !== 'failed') return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (message.type === 'failed') reject(new Error(`worker process failed: ${message.message}`));
      else resolve(message);
    };
    child.on('message', onMessage);
  });
}

async function startWorkers(count: number, backend: FleetBackend, ca: string): Promise<ChildProcess[]> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const children = Array.from({ length: count }, () =>
    fork(CHILD, [], {
      execArgv: ['--import', tsx],
      env: { ...process.env, TSX_TSCONFIG_PATH: TSCONFIG },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  await Promise.all(
    children.map((child) => {
      const ready = next(child, 'ready');
      send(child, { type: 'start', backend, ca });
      return ready;
    }),
  );
  return children;
}

/**
 * Emits `agencyCount × perAgency` deliveries with no worker running, starts
 * `workers` worker processes, and times them from `go` until the receiver has
 * every delivery: the sustained rate of that many processes on this machine.
 */
export async function measureFleet(options: {
  backend: FleetBackend;
  serverPid: number;
  receiver: ReceiverProcess;
  workers: number;
  agencyCount: number;
  perAgency: number;
}): Promise<FleetRun> {
  const { backend, serverPid, receiver, workers, agencyCount, perAgency } = options;
  const producer = await openProducer(backend, receiver.ca);
  let children: ChildProcess[] = [];
  try {
    const agencies = await configureAgencies(producer.webhooks, agencyCount, receiver.url);
    await emitBacklog(producer.webhooks, agencies, perAgency);
    const deliveries = agencies.length * perAgency;
    const received = async () => (await receiver.stats()).received;
    const target = (await received()) + deliveries;
    children = await startWorkers(workers, backend, receiver.ca);
    const serverBefore = serverCpuSeconds(serverPid);
    const started = performance.now();
    for (const child of children) send(child, { type: 'go' });
    await waitForDeliveries(received, target, `${workers} ${backend.kind} worker(s)`);
    const seconds = (performance.now() - started) / 1000;
    const serverAfter = serverCpuSeconds(serverPid);
    const stopped = await Promise.all(
      children.map((child) => {
        const done = next(child, 'stopped');
        send(child, { type: 'stop' });
        return done;
      }),
    );
    return {
      backend: backend.kind,
      workers,
      deliveries,
      seconds,
      perSecond: deliveries / seconds,
      workerCpuSeconds: stopped.map((message) => (message.type === 'stopped' ? message.cpuSeconds : 0)),
      serverCpuSeconds: serverAfter - serverBefore,
    };
  } finally {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null) return;
        const exited = once(child, 'exit');
        child.kill();
        await exited;
      }),
    );
    await producer.close();
  }
}
