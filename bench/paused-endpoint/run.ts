/**
 * `pnpm --filter @svc/bench run paused-endpoint`: how soon a person's action
 * reaches a receiver while its endpoint is paused by the circuit breaker, and
 * whether a held delivery ever shows a `nextRetryAt` already past.
 *
 * Per backend and round: the breaker's defaults (five failures, 30 s open), the
 * retry schedule hosts use in their own tests (`[100, 100, 100, 100]`), two
 * worker processes and an API process (each its own store and queue over the
 * one backend), a receiver by hostname through the resolver hook that answers
 * 503 until it is fixed. One delivery fails its five attempts, which opens the
 * breaker; HELD more are emitted and watched for a while; then the receiver is
 * fixed and a person acts in the API process: a replay of the failed delivery,
 * a test send, or a bulk recovery (one agency each). Reports the time from the
 * action to the person's delivery, and from it to the last held delivery.
 *
 * Bars (issue "failure you can trust"): the replayed delivery within 1 s of the
 * replay (and a test send's answer), the held ones within 2 s after the person's
 * delivery; no held delivery shows a `nextRetryAt` more than 1 s in the past.
 *
 * Writes the `paused-endpoint` section of docs/benchmarks.md (`--no-write`: print only).
 * Environment: BENCH_BACKENDS (memory,pg,redis), BENCH_PAUSED_ROUNDS (5), BENCH_PAUSED_HELD (20).
 */
import { loadavg } from 'node:os';
import { jobCancelled, startTestReceiver, type TestReceiver } from '@svc/test-support';
import {
  createWebhookService,
  createWorker,
  type WebhookService,
  type WebhookWorker,
} from '@svc/webhooks-core';
import { BACKENDS, type BackendKind } from '../isolation/backends';
import { resolveHooksTest } from '../isolation/service-setup';
import { median } from '../isolation/summary';
import { pollUntil } from '../lib/poll';
import { describeMachine, markdownTable, writeBenchSection } from '../lib/report';
import { openSharedBackend, type SharedBackend } from './shared-backend';

const ROUNDS = Number(process.env.BENCH_PAUSED_ROUNDS ?? 5);
const HELD = Number(process.env.BENCH_PAUSED_HELD ?? 20);
const SELECTED: BackendKind[] = process.env.BENCH_BACKENDS
  ? (process.env.BENCH_BACKENDS.split(',') as BackendKind[])
  : [...BACKENDS];
const ACTIONS = ['replay', 'test send', 'recovery'] as const;
type Action = (typeof ACTIONS)[number];
const RETRY = { schedule: [100, 100, 100, 100] };
/** How long the held deliveries are watched before the fix, and how often each is read meanwhile. */
const WATCH_MS = 1_500;
const WATCH_EVERY_MS = 100;
const LIMIT_MS = 40_000;
const write = !process.argv.includes('--no-write');

interface Measured {
  /** From the action to the person's own delivery (for a test send: to its answer), ms. */
  personMs: number;
  /** From the person's delivery to the last held one, ms. */
  heldAfterMs: number;
  /** The most any held delivery's `nextRetryAt` was in the past when read, ms (negative: all in the future). */
  worstPastMs: number;
}

interface World {
  api: WebhookService;
  close(): Promise<void>;
}

async function startWorld(backend: SharedBackend, receiver: TestReceiver): Promise<World> {
  const services: WebhookService[] = [];
  const workers: WebhookWorker[] = [];
  const service = async () => {
    const pair = await backend.open();
    const webhooks = createWebhookService({
      store: pair.store,
      queue: pair.queue,
      urlPolicy: { allowPrivateNetworks: true, resolve: resolveHooksTest },
      transport: { tls: { ca: receiver.ca } },
      retry: RETRY,
    });
    services.push(webhooks);
    return webhooks;
  };
  for (let n = 0; n < 2; n++) {
    const worker = createWorker(await service());
    await worker.start();
    workers.push(worker);
  }
  const api = await service();
  return {
    api,
    async close() {
      for (const worker of workers) await worker.stop();
      for (const webhooks of services) await webhooks.close();
    },
  };
}

async function delivered(api: WebhookService, agencyId: string, deliveryId: string): Promise<number> {
  const { value } = await pollUntil(
    () => api.getDelivery(agencyId, deliveryId),
    (detail) => detail.status === 'success',
    LIMIT_MS,
    5,
  );
  if (value.status !== 'success') throw new Error(`${deliveryId} was not delivered within ${LIMIT_MS} ms`);
  return value.deliveredAt as number;
}

async function measure(api: WebhookService, receiver: TestReceiver, agencyId: string, action: Action) {
  await api.putConfig(agencyId, {
    webhookUrl: `https://${agencyId}.hooks.test:${receiver.port}/hooks`,
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
  });
  receiver.respond(() => ({ status: 503 }));
  const failed = (await api.emit(jobCancelled(agencyId, 0)))?.deliveryId as string;
  await pollUntil(
    async () =>
      (await api.getDelivery(agencyId, failed)).status === 'failed' &&
      (await api.getEndpointHealth(agencyId)).pausedUntil !== null,
    (done) => done,
    LIMIT_MS,
  );
  const held: string[] = [];
  for (let n = 1; n <= HELD; n++)
    held.push((await api.emit(jobCancelled(agencyId, n)))?.deliveryId as string);
  let worstPastMs = Number.NEGATIVE_INFINITY;
  const watchUntil = Date.now() + WATCH_MS;
  while (Date.now() < watchUntil) {
    for (const id of held) {
      const detail = await api.getDelivery(agencyId, id);
      if (detail.status === 'pending')
        worstPastMs = Math.max(worstPastMs, Date.now() - (detail.nextRetryAt ?? 0));
    }
    await new Promise((resolve) => setTimeout(resolve, WATCH_EVERY_MS));
  }

  receiver.respond(() => ({ status: 200 }));
  const actedAt = Date.now();
  let personAt: number;
  if (action === 'replay') {
    await api.replay(agencyId, failed);
    personAt = await delivered(api, agencyId, failed);
  } else if (action === 'recovery') {
    await api.recoverDeliveries(agencyId, { since: 0 });
    personAt = await delivered(api, agencyId, failed);
  } else {
    const result = await api.sendTest(agencyId);
    if (!result.success) throw new Error(`the test send failed: ${result.message}`);
    personAt = Date.now();
  }
  let lastHeld = 0;
  for (const id of held) lastHeld = Math.max(lastHeld, await delivered(api, agencyId, id));
  return { personMs: personAt - actedAt, heldAfterMs: Math.max(0, lastHeld - personAt), worstPastMs };
}

function cell(values: readonly number[]): string {
  return `${Math.round(median(values)).toLocaleString('en-US')} / ${Math.round(Math.max(...values)).toLocaleString('en-US')} ms`;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const receiver = await startTestReceiver();
  const results = new Map<string, Measured[]>();
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const kind of SELECTED) {
        const backend = await openSharedBackend(kind, `paused-${round}`);
        const world = await startWorld(backend, receiver);
        try {
          for (const action of ACTIONS) {
            const agencyId = `agency-${action.replace(' ', '-')}-${round}`;
            const measured = await measure(world.api, receiver, agencyId, action);
            const key = `${kind}:${action}`;
            results.set(key, [...(results.get(key) ?? []), measured]);
            console.log(
              `round ${round} ${kind} ${action}: person ${measured.personMs} ms, held after ${measured.heldAfterMs} ms, worst past ${measured.worstPastMs} ms`,
            );
          }
        } finally {
          await world.close();
          await backend.close();
        }
      }
    }
  } finally {
    await receiver.close();
  }
  const rows: string[][] = [];
  let met = true;
  for (const kind of SELECTED) {
    for (const action of ACTIONS) {
      const of = results.get(`${kind}:${action}`) ?? [];
      const person = of.map((m) => m.personMs);
      const heldAfter = of.map((m) => m.heldAfterMs);
      const worst = Math.max(...of.map((m) => m.worstPastMs));
      // A recovery's own first delivery also waits for a worker's walker to find the recovery (its
      // poll is 1 s when the recovery was started in another process), so the 1 s bar is the replay's.
      const personBarred = action !== 'recovery';
      if ((personBarred && Math.max(...person) > 1_000) || Math.max(...heldAfter) > 2_000 || worst > 1_000) {
        met = false;
      }
      rows.push([
        kind,
        action,
        cell(person),
        cell(heldAfter),
        `${Math.round(worst).toLocaleString('en-US')} ms`,
      ]);
    }
  }
  const markdown = `## A paused endpoint: a person's action and the held deliveries (\`bench/paused-endpoint\`)

${describeMachine()}; load average ${loadBefore.toFixed(2)} before, ${(loadavg()[0] ?? 0).toFixed(2)} after.
${ROUNDS} rounds per backend; each round has two worker processes and an API process over one backend (their
own store and queue each), default service and worker settings except \`retry.schedule\` [100, 100, 100, 100],
and a receiver by hostname that answers 503 until it is fixed. One delivery fails its five attempts, which
opens the breaker for its default 30 s; ${HELD} more are emitted and read every ${WATCH_EVERY_MS} ms for ${WATCH_MS / 1000} s; then the
receiver is fixed and the API process replays the failed delivery, sends a test event, or starts a bulk
recovery. Cells: median / worst over the rounds. "Person": from the action to the replayed or recovered
delivery's \`deliveredAt\` (a test send: to its answer). "Held after": from then to the last held delivery's.
"Worst past": how far in the past a held delivery's \`nextRetryAt\` ever was when read (negative: never).
Bars: person ≤ 1,000 ms (replay and test send; a recovery started in the API process is first found by a
worker's walker, which looks every second), held after ≤ 2,000 ms, worst past ≤ 1,000 ms: ${met ? 'met' : 'NOT met'}.

${markdownTable(['backend', 'action', 'person', 'held after', 'worst past'], rows)}
`;
  console.log(`\n${markdown}`);
  if (write) writeBenchSection('paused-endpoint', markdown);
  if (!met) process.exitCode = 1;
}

await main();
