/**
 * `pnpm --filter @svc/bench run recovery-dry-runs`: can one agency's recovery
 * dry runs slow another agency's API? One agency holds FAILED failed
 * deliveries, and CLIENTS loops ask for a dry run of all of them as fast as the
 * service answers; meanwhile a quiet agency reads its own delivery list and a
 * delivery, one call after another. Its median call time is compared with the
 * same reads alone, in pairs of alternating order, with the service's default
 * `recoveryLimit` and, for contrast, with `recoveryLimit: false`.
 *
 * Bar (issue "failure you can trust"): with the defaults, the quiet agency's
 * median at most 1.10× alone.
 *
 * Writes the `recovery-dry-runs` section of docs/benchmarks.md (`--no-write`: print only).
 * Environment: BENCH_BACKENDS (memory,pg,redis), BENCH_DRYRUN_FAILED (100000), BENCH_DRYRUN_PAIRS (3).
 */
import { loadavg } from 'node:os';
import {
  createWebhookService,
  RateLimitedError,
  type WebhookService,
  type WebhookStore,
} from '@svc/webhooks-core';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import { createIdGenerator } from '../../packages/core/src/ids';
import { BACKENDS, type BackendKind, openBackend } from '../isolation/backends';
import { median } from '../isolation/summary';
import { describeMachine, formatRatio, markdownTable, writeBenchSection } from '../lib/report';

const FAILED = Number(process.env.BENCH_DRYRUN_FAILED ?? 100_000);
const PAIRS = Number(process.env.BENCH_DRYRUN_PAIRS ?? 3);
const CLIENTS = 8;
const REFUSED_RETRY_MS = 1;
const WINDOW_MS = 3_000;
const BUSY = 'agency-busy';
const QUIET = 'agency-quiet';
const T0 = 1_700_000_000_000;
const SELECTED: BackendKind[] = process.env.BENCH_BACKENDS
  ? (process.env.BENCH_BACKENDS.split(',') as BackendKind[])
  : [...BACKENDS];
const write = !process.argv.includes('--no-write');

async function seed(store: WebhookStore): Promise<string> {
  let createdAt = T0;
  const idAt = createIdGenerator({ now: () => createdAt });
  const failed = (agencyId: string, offset: number) => {
    createdAt = T0 + offset;
    return makeDeliveryRecord({
      id: idAt(),
      agencyId,
      status: 'failed',
      attempt: 5,
      maxAttempts: 5,
      nextRetryAt: null,
      lastResponseCode: 503,
      createdAt,
    });
  };
  for (let start = 0; start < FAILED; start += 500) {
    const batch = Array.from({ length: Math.min(500, FAILED - start) }, (_, n) => failed(BUSY, start + n));
    await Promise.all(batch.map((record) => store.insertDelivery(record)));
  }
  const own = Array.from({ length: 50 }, (_, n) => failed(QUIET, FAILED + n));
  await Promise.all(own.map((record) => store.insertDelivery(record)));
  return own[0]?.id as string;
}

/** The quiet agency's median call time over the window, with `load` running beside it when given. */
async function quietMedian(webhooks: WebhookService, deliveryId: string, load: boolean): Promise<number> {
  let running = true;
  const loops = load
    ? Array.from({ length: CLIENTS }, async () => {
        while (running) {
          try {
            await webhooks.recoverDeliveries(BUSY, { since: 0, dryRun: true });
          } catch (error) {
            if (!(error instanceof RateLimitedError)) throw error;
            // A refused client asks again without waiting for Retry-After, as a script in a loop
            // would: after a loopback HTTP round trip's worth (a client in another process cannot
            // ask faster than that), not in a tight loop on the service's own event loop.
            await new Promise((resolve) => setTimeout(resolve, REFUSED_RETRY_MS));
          }
        }
      })
    : [];
  const times: number[] = [];
  const until = performance.now() + WINDOW_MS;
  while (performance.now() < until) {
    const started = performance.now();
    await webhooks.listDeliveries(QUIET, { limit: 20 });
    await webhooks.getDelivery(QUIET, deliveryId);
    times.push(performance.now() - started);
  }
  running = false;
  await Promise.all(loops);
  return median(times);
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const rows: string[][] = [];
  let met = true;
  for (const kind of SELECTED) {
    const backend = await openBackend(kind, `dry-runs-${kind}`);
    const deliveryId = await seed(backend.store);
    const limited = createWebhookService({ store: backend.store, queue: backend.queue });
    const unlimited = createWebhookService({
      store: backend.store,
      queue: backend.queue,
      recoveryLimit: false,
    });
    const ratios = { limited: [] as number[], unlimited: [] as number[] };
    const alones: number[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      for (const [name, webhooks] of [
        ['limited', limited],
        ['unlimited', unlimited],
      ] as const) {
        // Alternating order, so neither side of a ratio always goes first.
        const loadedFirst = pair % 2 === 1;
        const first = await quietMedian(webhooks, deliveryId, loadedFirst);
        const second = await quietMedian(webhooks, deliveryId, !loadedFirst);
        const [alone, loaded] = loadedFirst ? [second, first] : [first, second];
        alones.push(alone);
        ratios[name].push(loaded / alone);
        console.log(
          `${kind} pair ${pair + 1} ${name}: alone ${alone.toFixed(2)} ms, loaded ${loaded.toFixed(2)} ms`,
        );
      }
    }
    const limitedRatio = median(ratios.limited);
    if (limitedRatio > 1.1) met = false;
    rows.push([
      kind,
      `${median(alones).toFixed(2)} ms`,
      `${formatRatio(limitedRatio)} (${ratios.limited.map(formatRatio).join(', ')})`,
      `${formatRatio(median(ratios.unlimited))} (${ratios.unlimited.map(formatRatio).join(', ')})`,
    ]);
    await limited.close();
    await unlimited.close();
    await backend.close();
  }
  const markdown = `## Recovery dry runs beside another agency's API (\`bench/recovery/dry-run-load.ts\`)

${describeMachine()}; load average ${loadBefore.toFixed(2)} before, ${(loadavg()[0] ?? 0).toFixed(2)} after.
One agency holds ${FAILED.toLocaleString('en-US')} failed deliveries and ${CLIENTS} clients ask for a dry run of all of them in a loop
(a refused one asks again ${REFUSED_RETRY_MS} ms later, ignoring \`Retry-After\`); a quiet agency lists its deliveries and reads one, one call after
another, for ${WINDOW_MS / 1000} s. Cells: the quiet agency's median (list + read) with the dry runs ÷ alone, median of ${PAIRS}
pairs in alternating order (each pair in brackets), through the service in one process. Default: the
service's \`recoveryLimit\` (5 dry runs or starts a minute per agency, then 429); off: \`recoveryLimit: false\`.
Bar: default ≤ 1.10×: ${met ? 'met' : 'NOT met'}.

${markdownTable(['backend', 'quiet alone', 'with dry runs, default limit', 'with dry runs, limit off'], rows)}
`;
  console.log(`\n${markdown}`);
  if (write) writeBenchSection('recovery-dry-runs', markdown);
  if (!met) process.exitCode = 1;
}

await main();
