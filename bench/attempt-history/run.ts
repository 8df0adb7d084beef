/**
 * `pnpm --filter @svc/bench run attempt-history`: what recording every attempt
 * (the attempt history, `GET /deliveries/:id/attempts`) costs delivery. The
 * same backlog of new events is delivered twice per round on each backend:
 * with the store as it is, and with a store that drops the attempt an update
 * carries (`recordedAttempt`), so the compare-and-set writes the delivery
 * alone, as before the history existed. Everything else is the same code.
 *
 * 100 agencies × 100 deliveries, receivers by hostname through the resolver
 * hook, service and worker on default settings. After one warm-up run per
 * backend, rounds interleave the two variants, alternating which goes first
 * (use an even number of rounds); the ratio is the median of each round's ratio. Writes the
 * `attempt-history` section of docs/benchmarks.md (`--no-write`: print only).
 *
 * Environment: BENCH_BACKENDS (memory,pg,redis), BENCH_ROUNDS (8),
 * BENCH_AGENCIES (100), BENCH_PER_AGENCY (100), DATABASE_URL, REDIS_URL.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { createWorker, generateSigningSecret, type WebhookStore } from '@svc/webhooks-core';
import { BACKENDS, type BackendKind, openBackend } from '../isolation/backends';
import { type IsolationReceivers, startIsolationReceivers } from '../isolation/receivers';
import { configureAgencies, createIsolationService } from '../isolation/service-setup';
import { median } from '../isolation/summary';
import { emitBacklog } from '../lib/backlog';
import { describeMachine, formatRatio, markdownTable, writeBenchSection } from '../lib/report';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const AGENCIES = Number(process.env.BENCH_AGENCIES ?? 100);
const PER_AGENCY = Number(process.env.BENCH_PER_AGENCY ?? 100);
const SELECTED: BackendKind[] = process.env.BENCH_BACKENDS
  ? (process.env.BENCH_BACKENDS.split(',') as BackendKind[])
  : [...BACKENDS];
const write = !process.argv.includes('--no-write');
const BAR = 0.9;

type Variant = 'recorded' | 'not recorded';

/** The store with every update's attempt record dropped: the compare-and-set writes the delivery only. */
function withoutAttemptHistory(store: WebhookStore): WebhookStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'updateDelivery') {
        return (...[id, expected, update]: Parameters<WebhookStore['updateDelivery']>) =>
          target.updateDelivery(id, expected, { ...update, recordedAttempt: undefined });
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function measure(
  kind: BackendKind,
  variant: Variant,
  receivers: IsolationReceivers,
  secret: string,
): Promise<number> {
  const tag = randomUUID().slice(0, 8);
  const backend = await openBackend(kind, `history-${variant === 'recorded' ? 'on' : 'off'}-${tag}`);
  const total = AGENCIES * PER_AGENCY;
  let delivered = 0;
  let done: () => void = () => {};
  const allDelivered = new Promise<void>((resolve) => {
    done = resolve;
  });
  const store = variant === 'recorded' ? backend.store : withoutAttemptHistory(backend.store);
  const webhooks = createIsolationService({ store, queue: backend.queue }, receivers.ca, {
    onDelivered: () => {
      if (++delivered === total) done();
    },
  });
  const agencies = Array.from({ length: AGENCIES }, (_, index) => `agency-${index}`);
  await configureAgencies(
    backend.store,
    agencies.map((agencyId) => ({
      agencyId,
      webhookUrl: `https://${agencyId}.hooks.test:${receivers.ports.ok}/ok/${tag}/${agencyId}`,
    })),
    secret,
  );
  await emitBacklog(webhooks, agencies, PER_AGENCY);
  const worker = createWorker(webhooks);
  const started = performance.now();
  await worker.start();
  await allDelivered;
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  await webhooks.close();
  await backend.close();
  return total / seconds;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const receivers = await startIsolationReceivers();
  const secret = generateSigningSecret();
  const rates = new Map<string, number[]>();
  const ratios = new Map<BackendKind, number[]>();
  try {
    // One unrecorded run per backend first: the first measurement of a process pays for warming up
    // (compilation, connections), which would otherwise count against whichever variant went first.
    for (const kind of SELECTED) await measure(kind, 'recorded', receivers, secret);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const kind of SELECTED) {
        // Alternate which variant goes first, so warming up favours neither.
        const order: Variant[] =
          round % 2 === 1 ? ['recorded', 'not recorded'] : ['not recorded', 'recorded'];
        const result = new Map<Variant, number>();
        for (const variant of order) {
          const rate = await measure(kind, variant, receivers, secret);
          result.set(variant, rate);
          rates.set(`${kind}/${variant}`, [...(rates.get(`${kind}/${variant}`) ?? []), rate]);
          console.log(`round ${round} ${kind} ${variant}: ${Math.round(rate)}/s`);
        }
        const ratio = (result.get('recorded') ?? 0) / (result.get('not recorded') ?? 1);
        ratios.set(kind, [...(ratios.get(kind) ?? []), ratio]);
      }
    }
  } finally {
    await receivers.close();
  }
  const format = (rate: number) => `${Math.round(rate).toLocaleString('en-US')}/s`;
  const rows = SELECTED.map((kind) => {
    const ratio = median(ratios.get(kind) ?? []);
    return [
      kind,
      format(median(rates.get(`${kind}/not recorded`) ?? [])),
      format(median(rates.get(`${kind}/recorded`) ?? [])),
      `${formatRatio(ratio)} ${ratio >= BAR ? '(met)' : '(**missed**)'}`,
      // At or above 1× the cost is lost in the machine's drift; a negative percentage would read as a gain.
      ratio >= 1 ? 'none measured' : `${((1 - ratio) * 100).toFixed(1)} %`,
    ];
  });
  const eachRound = SELECTED.map(
    (kind) => `${kind}: ${(ratios.get(kind) ?? []).map((ratio) => formatRatio(ratio)).join(', ')}`,
  ).join('; ');
  const spreads = SELECTED.map((kind) => {
    const variantRates = rates.get(`${kind}/not recorded`) ?? [];
    return `${format(Math.min(...variantRates))}–${format(Math.max(...variantRates))} (${kind})`;
  }).join(', ');
  const markdown = `## Attempt history's cost (\`bench/attempt-history\`)

${describeMachine()}; load average ${loadBefore.toFixed(2)} before, ${(loadavg()[0] ?? 0).toFixed(2)} after; ${ROUNDS} rounds.
After a warm-up run per backend, ${AGENCIES} agencies × ${PER_AGENCY} new deliveries from a backlog, delivered with every attempt recorded in the
history, and with a store that drops the attempt record from each update (the same compare-and-set, writing the
delivery alone). Rounds alternate which variant goes first; ratio: the median of each round's recorded ÷ not recorded. Bar: recording costs at most 10 %
(≥ ${BAR}×).

${markdownTable(['backend', 'not recorded', 'recorded', 'recorded ÷ not recorded', 'cost'], rows)}

Ratio of each round: ${eachRound}. They spread far wider than the cost itself, because the machine's speed
drifts from one second to the next and a round's two measurements are seconds apart: the same code, not
recorded, ran at ${spreads}. The median over the rounds is what the bar is judged on.
`;
  console.log(markdown);
  if (write) writeBenchSection('attempt-history', markdown);
}

await main();
