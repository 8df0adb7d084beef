import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { jobCancelled, startTestReceiver, type TestReceiver } from '@svc/test-support';
import { createWebhookService, createWorker, StoreUnavailableError } from '@svc/webhooks-core';
import { Cluster, Redis } from 'ioredis';
import { createRedisWebhooks, type RedisWebhooksOptions } from '../src/index';

/**
 * One Redis Cluster failover under traffic, shared by the failover test and
 * bench/redis-failover: a linked store and queue on a real cluster, a worker
 * delivering to a real HTTPS receiver, emits paced at `ratePerSecond` by a host
 * that retries `store_unavailable` with the same `eventId`, and, after `killAfter`
 * emits, the master of the prefix's slot SIGKILLed. Once a replica has taken over,
 * the killed node is started again with its own settings (it rejoins as a replica),
 * and the run waits until every acknowledged delivery has arrived (or `drainMs`).
 */
export interface FailoverRunOptions {
  nodes: { host: string; port: number }[];
  durability?: RedisWebhooksOptions['durability'];
  emits: number;
  ratePerSecond: number;
  killAfter: number;
  /** Longest wait for acknowledged deliveries to arrive after the last emit. */
  drainMs?: number;
  log?: (line: string) => void;
}

export interface FailoverRunResult {
  /** Emits that resolved (with a delivery id): what the host was told is stored. */
  acknowledged: number;
  /** Acknowledged deliveries that never arrived at the receiver. */
  lost: number;
  /** Requests beyond the first per delivery. */
  duplicates: number;
  /** Emit calls that threw `store_unavailable` (each retried with the same eventId). */
  typedFailures: number;
  /** Errors of any other kind that reached the emitting host (messages). */
  untyped: string[];
  /** Emits that gave up (still unavailable after their deadline). */
  abandoned: number;
  /** From the first to the last emit that failed typed, ms. */
  unavailableWindowMs: number;
  /** What the worker reported through `hooks.onError`, by stage, and any report that was not typed. */
  reported: Record<string, number>;
  untypedReported: string[];
  /** Deliveries with the same attempt number recorded more than once. */
  attemptsRecordedTwice: number;
  /** Emit (first call) to first arrival, ms. */
  p50Ms: number;
  p99Ms: number;
  /** Emit resolved (acknowledged) to first arrival, ms. */
  ackedToReceivedP50Ms: number;
  ackedToReceivedP99Ms: number;
  /** From the first emit: the last acknowledgement and the last first arrival, ms. */
  lastAckedMs: number;
  lastArrivalMs: number;
  /** Acknowledgements and first arrivals per second from the first emit (the kill is at killAfter / rate). */
  timeline: { acked: number[]; arrived: number[] };
  killedNode: string;
  newMaster: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runFailover(options: FailoverRunOptions): Promise<FailoverRunResult> {
  const log = options.log ?? (() => {});
  const prefix = `{whk-failover-${randomBytes(5).toString('hex')}}:`;
  const cluster = new Cluster(options.nodes);
  cluster.on('error', () => {});
  const receiver = await startTestReceiver();
  const linked = createRedisWebhooks({ redis: cluster, prefix, durability: options.durability });
  const reported: Record<string, number> = {};
  const untypedReported: string[] = [];
  const webhooks = createWebhookService({
    store: linked.store,
    queue: linked.queue,
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca: receiver.ca }, timeoutMs: 5_000 },
    retry: { schedule: [200, 500, 1_000], jitterRatio: 0 },
    hooks: {
      onError(error, context) {
        reported[context.stage] = (reported[context.stage] ?? 0) + 1;
        if (!(error instanceof StoreUnavailableError))
          untypedReported.push(`${context.stage}: ${String(error)}`);
      },
    },
  });
  const worker = createWorker(webhooks, {
    concurrency: 32,
    perAgencyConcurrency: 32,
    leaseMs: 3_000,
    pollIntervalMs: 200,
    recoverySweep: false,
  });
  const agencies = ['agency-1', 'agency-2', 'agency-3'];
  let killedNode = '';
  let newMaster = '';
  try {
    for (const agency of agencies) {
      await webhooks.putConfig(agency, {
        webhookUrl: receiver.url,
        enabled: true,
        subscribedEventTypes: ['job_cancelled'],
      });
    }
    await worker.start();
    // Warm: TLS sessions, keep-alive connections, script caches, the agencies' windows.
    for (let n = 0; n < 60; n += 1) await webhooks.emit(jobCancelled(agencies[n % agencies.length]!, -1 - n));
    await receiver.waitForRequests(60, 30_000);
    receiver.requests.length = 0;
    const master = await slotMaster(options.nodes, `${prefix}{store}:pending`);
    killedNode = `${master.host}:${master.port}`;

    const emittedAt = new Map<string, number>();
    const ackedAt = new Map<string, number>();
    const acknowledged: string[] = [];
    const untyped: string[] = [];
    let typedFailures = 0;
    let abandoned = 0;
    let firstFailure = Number.POSITIVE_INFINITY;
    let lastFailure = 0;
    const emitOne = async (n: number): Promise<void> => {
      const input = { ...jobCancelled(agencies[n % agencies.length]!, n), eventId: `evt-${n}` };
      const started = performance.now();
      const deadline = started + 30_000;
      for (;;) {
        try {
          const result = await webhooks.emit(input);
          if (result) {
            acknowledged.push(result.deliveryId);
            emittedAt.set(`whdel_${result.deliveryId}`, Date.now() - (performance.now() - started));
            ackedAt.set(`whdel_${result.deliveryId}`, Date.now());
          }
          return;
        } catch (error) {
          if (!(error instanceof StoreUnavailableError)) {
            untyped.push(String(error));
            return;
          }
          typedFailures += 1;
          firstFailure = Math.min(firstFailure, performance.now());
          lastFailure = Math.max(lastFailure, performance.now());
          if (performance.now() > deadline) {
            abandoned += 1;
            return;
          }
          // The host's retry: the same input, eventId included, after a short pause.
          await sleep(Math.min(200, error.retryAfterMs));
        }
      }
    };

    const pending: Promise<void>[] = [];
    const startedAt = performance.now();
    let killed: Promise<void> | null = null;
    for (let n = 0; n < options.emits; n += 1) {
      const due = startedAt + (n * 1000) / options.ratePerSecond;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (n === options.killAfter) {
        killed = killAndRestore(master, options.nodes, `${prefix}{store}:pending`, log).then((promoted) => {
          newMaster = promoted;
        });
      }
      pending.push(emitOne(n));
    }
    await Promise.all(pending);
    await killed;
    log(
      `emits done: ${acknowledged.length} acknowledged, ${typedFailures} typed failures, ${untyped.length} untyped`,
    );

    const expected = new Set(acknowledged.map((id) => `whdel_${id}`));
    const drainUntil = performance.now() + (options.drainMs ?? 30_000);
    const arrivals = (): Map<string, number> => arrivalsOf(receiver);
    while (performance.now() < drainUntil) {
      const seen = arrivals();
      if ([...expected].every((id) => seen.has(id))) break;
      await sleep(100);
    }
    const seen = arrivals();
    const latencies = [...expected]
      .filter((id) => seen.has(id))
      .map((id) => (firstArrival(receiver, id) ?? 0) - (emittedAt.get(id) ?? 0))
      .sort((a, b) => a - b);
    const sinceAck = [...expected]
      .filter((id) => seen.has(id))
      .map((id) => (firstArrival(receiver, id) ?? 0) - (ackedAt.get(id) ?? 0))
      .sort((a, b) => a - b);
    const firstEmit = Math.min(...emittedAt.values());
    const lastArrival = Math.max(...[...expected].map((id) => firstArrival(receiver, id) ?? 0));
    let attemptsRecordedTwice = 0;
    for (const id of acknowledged) {
      const attempts = await webhooks.store.listAttempts(id);
      if (new Set(attempts.map((attempt) => attempt.attempt)).size !== attempts.length)
        attemptsRecordedTwice += 1;
    }
    return {
      acknowledged: acknowledged.length,
      lost: [...expected].filter((id) => !seen.has(id)).length,
      duplicates: [...seen.values()].reduce((sum, count) => sum + count - 1, 0),
      typedFailures,
      untyped,
      abandoned,
      unavailableWindowMs: lastFailure >= firstFailure ? Math.round(lastFailure - firstFailure) : 0,
      reported,
      untypedReported,
      attemptsRecordedTwice,
      p50Ms: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
      p99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0,
      ackedToReceivedP50Ms: sinceAck[Math.floor(sinceAck.length * 0.5)] ?? 0,
      ackedToReceivedP99Ms: sinceAck[Math.min(sinceAck.length - 1, Math.floor(sinceAck.length * 0.99))] ?? 0,
      lastAckedMs: Math.max(...ackedAt.values()) - firstEmit,
      lastArrivalMs: lastArrival - firstEmit,
      timeline: {
        acked: perSecond([...ackedAt.values()], firstEmit),
        arrived: perSecond(
          [...expected].map((id) => firstArrival(receiver, id) ?? firstEmit),
          firstEmit,
        ),
      },
      killedNode,
      newMaster,
    };
  } finally {
    await worker.stop();
    await webhooks.close();
    await linked.close();
    await removeKeysEverywhere(cluster, prefix).catch(() => {});
    cluster.disconnect();
    await receiver.close();
    await waitForHealthyCluster(options.nodes, 60_000);
  }
}

function perSecond(times: number[], from: number): number[] {
  const counts: number[] = [];
  for (const time of times) {
    const second = Math.max(0, Math.floor((time - from) / 1000));
    while (counts.length <= second) counts.push(0);
    counts[second] = (counts[second] ?? 0) + 1;
  }
  return counts;
}

function arrivalsOf(receiver: TestReceiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of receiver.requests) {
    const id = String(request.headers['x-service-webhook-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

function firstArrival(receiver: TestReceiver, id: string): number | undefined {
  return receiver.requests.find((request) => request.headers['x-service-webhook-id'] === id)?.receivedAt;
}

/** A direct connection to one node, failing fast (a killed node must not hang the run). */
function direct(node: { host: string; port: number }): Redis {
  const client = new Redis({
    ...node,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  return client;
}

async function ask<T>(node: { host: string; port: number }, run: (client: Redis) => Promise<T>): Promise<T> {
  const client = direct(node);
  try {
    await client.connect();
    return await run(client);
  } finally {
    client.disconnect();
  }
}

/** The master serving `key`'s slot, asked of the first node that answers. */
async function slotMaster(
  nodes: { host: string; port: number }[],
  key: string,
): Promise<{ host: string; port: number }> {
  for (const node of nodes) {
    try {
      return await ask(node, async (client) => {
        const slot = Number(await client.cluster('KEYSLOT', key));
        const ranges = await client.cluster('SLOTS');
        const range = ranges.find(([from, to]) => slot >= from && slot <= to);
        const owner = range?.[2];
        if (!owner) throw new Error(`slot ${slot} has no master`);
        return { host: owner[0], port: Number(owner[1]) };
      });
    } catch {
      // A dead node or one that does not know yet: ask the next.
    }
  }
  throw new Error('no node of the cluster answers');
}

/**
 * SIGKILLs `master` (its pid from INFO), waits until another node serves the slot, then
 * starts the killed node again with the settings it ran with; it rejoins as a replica.
 * Resolves with the new master's address.
 */
async function killAndRestore(
  master: { host: string; port: number },
  nodes: { host: string; port: number }[],
  key: string,
  log: (line: string) => void,
): Promise<string> {
  const { pid, args } = await ask(master, async (client) => {
    const info = String(await client.info('server'));
    const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    const setting = async (name: string): Promise<string> =>
      String(((await client.config('GET', name)) as string[])[1] ?? '');
    const args = [
      '--daemonize',
      'yes',
      '--bind',
      master.host,
      '--port',
      String(master.port),
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      await setting('cluster-config-file'),
      '--cluster-node-timeout',
      await setting('cluster-node-timeout'),
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      await setting('dir'),
      '--logfile',
      await setting('logfile'),
    ];
    return { pid, args };
  });
  const killedAt = performance.now();
  process.kill(pid, 'SIGKILL');
  log(`killed ${master.host}:${master.port} (pid ${pid})`);
  const others = nodes.filter((node) => node.port !== master.port || node.host !== master.host);
  let promoted = '';
  for (;;) {
    const now = await slotMaster(others, key).catch(() => null);
    if (now && (now.port !== master.port || now.host !== master.host)) {
      promoted = `${now.host}:${now.port}`;
      break;
    }
    if (performance.now() - killedAt > 60_000) throw new Error('no replica took over within 60 s');
    await sleep(100);
  }
  log(
    `${promoted} took over after ${Math.round(performance.now() - killedAt)} ms; restarting the killed node`,
  );
  const started = spawnSync('redis-server', args, { encoding: 'utf8' });
  if (started.status !== 0) throw new Error(`redis-server did not start: ${started.stderr}`);
  return promoted;
}

/** Until every node answers, the cluster is ok and each master has its replica (a rerun starts from there). */
export async function waitForHealthyCluster(
  nodes: { host: string; port: number }[],
  timeoutMs: number,
): Promise<void> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const healthy = await ask(nodes[0]!, async (client) => {
      const info = String(await client.cluster('INFO'));
      const list = String(await client.cluster('NODES'));
      // The flags field: `slave`, or `myself,slave` on the node asked; `fail` or `fail?` while down.
      const replicas = list
        .split('\n')
        .map((line) => line.split(' ')[2] ?? '')
        .filter((flags) => flags.includes('slave') && !flags.includes('fail')).length;
      const linksUp = await Promise.all(
        nodes.map((node) =>
          ask(node, async (each) => {
            const replication = String(await each.info('replication'));
            return !replication.includes('role:slave') || replication.includes('master_link_status:up');
          }).catch(() => false),
        ),
      );
      return info.includes('cluster_state:ok') && replicas === nodes.length / 2 && linksUp.every(Boolean);
    }).catch(() => false);
    if (healthy) return;
    if (performance.now() > until) throw new Error('the cluster did not become healthy again');
    await sleep(200);
  }
}

async function removeKeysEverywhere(cluster: Cluster, prefix: string): Promise<void> {
  await Promise.all(
    cluster.nodes('master').map(async (node) => {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) await node.unlink(key);
      } while (cursor !== '0');
    }),
  );
}
