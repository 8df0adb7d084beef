import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { startDnsServer, type TestDnsServer } from '@svc/test-support';
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  createWorker,
  generateSigningSecret,
  type WebhookService,
  type WebhookStore,
} from '@svc/webhooks-core';
import { jobCancelled } from '../lib/memory-fixtures';
import { describeMachine, formatRatio, markdownTable, writeBenchSection } from '../lib/report';
import { type HandshakeCount, handshakesSince, handshakesSoFar } from './handshakes';
import { type BenchReceivers, startReceivers } from './receivers';

const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 200);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DEAD_ROUNDS = Number(process.env.BENCH_DEAD_ROUNDS ?? 5);
const STEADY_ROUNDS = Number(process.env.BENCH_STEADY_ROUNDS ?? 5);
/** The worker's default concurrency, as a service deployed with the defaults runs. */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 512);
const DELAYS_MS = [1, 20] as const;
/** TTL of every `*.hooks.test` record, in seconds: longer than any measurement. */
const TTL = 300;
/** TTL of the `s<i>.hooks.test` records of the steady-state part, in seconds: several expire during it. */
const STEADY_TTL = 5;
const DEAD_HOST = 'dead.hooks.test';
const DEAD_AGENCY = 'agency-dead';

interface Setup {
  receivers: BenchReceivers;
  dns: TestDnsServer;
  secret: string;
}

type Naming = 'ip' | 'hostname';

interface Plan {
  naming: Naming;
  /** The DNS server's answer delay, ms. */
  delayMs: number;
  /** Add one agency whose hostname's DNS server never answers. */
  deadAgency: boolean;
  /** First label of the hostnames: `r` (TTL 300 s) or `s` (the steady-state part's short TTL). */
  prefix?: 'r' | 's';
  /** Measure on this long-lived service instead of a new one (warm DNS cache and pools). */
  kept?: KeptService;
  /**
   * Idle until this long after the worker started before the next measurement,
   * so that runs with and without the dead agency (whose worker stops only when
   * its lookup has timed out) are each followed by the same idle time.
   */
  settleMs?: number;
}

/** What a service's hooks report to the measurement running on it. */
interface Tracker {
  delivered: number;
  done: () => void;
  deadDurations: number[];
  deadKinds: string[];
}

/** A service kept for a whole part of the run, as in a long-running worker process. */
interface KeptService {
  webhooks: WebhookService;
  tracker: Tracker;
}

interface Measurement {
  /** Deliveries per second of the healthy agencies, first claim to last recorded 2xx. */
  rate: number;
  /** DNS queries for the healthy agencies' hostnames. */
  queries: number;
  /** TLS handshakes the sender completed. */
  handshakes: HandshakeCount;
  /** With a dead agency: its attempts' durations (ms) and the queries for its name. */
  dead: { durations: number[]; errorKinds: string[]; queries: number } | null;
}

const agencyId = (i: number) => `agency-${i}`;

function urlOf(setup: Setup, plan: Plan, i: number): string {
  const port = setup.receivers.ports[i] as number;
  const prefix = plan.prefix ?? 'r';
  return plan.naming === 'ip'
    ? `https://${setup.receivers.addresses[i]}:${port}/hooks`
    : `https://${prefix}${i}.hooks.test:${port}/hooks`;
}

function serviceOptions(setup: Setup, store: WebhookStore) {
  return {
    store,
    queue: createMemoryQueue(),
    urlPolicy: { allowPrivateNetworks: true, dnsServers: [setup.dns.address] },
    transport: { tls: { ca: setup.receivers.ca } },
  };
}

/**
 * A store holding every agency's configuration, saved through a service of its
 * own (closed afterwards), as an API process would: the URLs are checked and
 * stored, and the sending service starts with a cold DNS cache. The answer delay
 * is 0 while saving, so that saving takes no time from the measurements around it.
 */
async function storeFor(setup: Setup, plan: Plan): Promise<WebhookStore> {
  const configs = Array.from({ length: RECEIVERS }, (_, i) => ({
    agencyId: agencyId(i),
    webhookUrl: urlOf(setup, plan, i),
  }));
  if (plan.deadAgency) {
    configs.push({
      agencyId: DEAD_AGENCY,
      webhookUrl: `https://${DEAD_HOST}:${setup.receivers.ports[0]}/hooks`,
    });
  }
  const store = createMemoryStore();
  const api = createWebhookService(serviceOptions(setup, store));
  const delayMs = setup.dns.delayMs;
  setup.dns.delayMs = 0;
  try {
    // The dead agency's URL cannot be checked (its DNS never answers): it is written to the store directly.
    await Promise.all(
      configs.map(({ agencyId, webhookUrl }) =>
        webhookUrl.includes(DEAD_HOST)
          ? store.upsertConfig({
              agencyId,
              webhookUrl,
              enabled: true,
              subscribedEventTypes: ['job_cancelled'],
              now: Date.now(),
              newId: randomUUID(),
              newSigningSecret: setup.secret,
            })
          : api.putConfig(agencyId, { webhookUrl, enabled: true, subscribedEventTypes: ['job_cancelled'] }),
      ),
    );
  } finally {
    setup.dns.delayMs = delayMs;
    await api.close();
  }
  return store;
}

function newTracker(): Tracker {
  return { delivered: 0, done: () => {}, deadDurations: [], deadKinds: [] };
}

async function serviceFor(setup: Setup, plan: Plan, tracker: Tracker): Promise<WebhookService> {
  return createWebhookService({
    ...serviceOptions(setup, await storeFor(setup, plan)),
    hooks: {
      onDelivered: () => {
        if (++tracker.delivered === DELIVERIES) tracker.done();
      },
      onAttempt: ({ delivery, outcome }) => {
        if (delivery.agencyId !== DEAD_AGENCY) return;
        tracker.deadDurations.push(outcome.durationMs);
        tracker.deadKinds.push(outcome.errorKind ?? 'none');
      },
    },
  });
}

/** A service for `plan` kept across measurements. */
async function keptService(setup: Setup, plan: Plan): Promise<KeptService> {
  const tracker = newTracker();
  return { webhooks: await serviceFor(setup, plan, tracker), tracker };
}

let emittedInAll = 0;

/**
 * One measurement: every agency's deliveries are emitted first (round robin
 * over the agencies), then a worker is started and timed until the last
 * healthy delivery is recorded as delivered.
 */
async function measure(setup: Setup, plan: Plan): Promise<Measurement> {
  setup.dns.delayMs = plan.delayMs;
  const tracker = plan.kept?.tracker ?? newTracker();
  tracker.delivered = 0;
  tracker.deadDurations = [];
  tracker.deadKinds = [];
  const allDelivered = new Promise<void>((resolve) => {
    tracker.done = resolve;
  });
  const webhooks = plan.kept?.webhooks ?? (await serviceFor(setup, plan, tracker));
  const perAgency = Math.ceil(DELIVERIES / RECEIVERS);
  let emitted = 0;
  for (let round = 0; round < perAgency; round++) {
    for (let i = 0; i < RECEIVERS && emitted < DELIVERIES; i++, emitted++) {
      await webhooks.emit(jobCancelled(agencyId(i), emittedInAll++));
    }
    if (plan.deadAgency) await webhooks.emit(jobCancelled(DEAD_AGENCY, emittedInAll++));
  }
  const queriesBefore = setup.dns.queries();
  const deadBefore = setup.dns.queries(DEAD_HOST);
  const worker = createWorker(webhooks, { concurrency: CONCURRENCY });
  const handshakesBefore = handshakesSoFar();
  const started = performance.now();
  await worker.start();
  await allDelivered;
  const seconds = (performance.now() - started) / 1000;
  const deadQueries = setup.dns.queries(DEAD_HOST) - deadBefore;
  const queries = setup.dns.queries() - queriesBefore - deadQueries;
  const handshakes = handshakesSince(handshakesBefore);
  // Waits for the dead agency's attempts still in flight (its lookup's timeout) to be recorded.
  await worker.stop();
  if (!plan.kept) await webhooks.close();
  const idle = (plan.settleMs ?? 0) - (performance.now() - started);
  if (idle > 0) await new Promise((resolve) => setTimeout(resolve, idle));
  return {
    rate: DELIVERIES / seconds,
    queries,
    handshakes,
    dead: plan.deadAgency
      ? {
          durations: tracker.deadDurations,
          errorKinds: tracker.deadKinds,
          queries: setup.dns.queries(DEAD_HOST) - deadBefore,
        }
      : null,
  };
}

function format(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Measurements of one kind, and the ratio of each to the mean of the baseline measurements around it. */
interface Series {
  rates: number[];
  ratios: number[];
  queriesPerHost: number[];
  fullHandshakes: number[];
  resumedHandshakes: number[];
}

const emptySeries = (): Series => ({
  rates: [],
  ratios: [],
  queriesPerHost: [],
  fullHandshakes: [],
  resumedHandshakes: [],
});

function record(into: Series, measured: Measurement): void {
  into.rates.push(measured.rate);
  into.queriesPerHost.push(measured.queries / RECEIVERS);
  into.fullHandshakes.push(measured.handshakes.full);
  into.resumedHandshakes.push(measured.handshakes.resumed);
}

/**
 * Runs `plans` in order, each between two baseline measurements (so n plans
 * take n + 1 baselines), and records each plan's ratio to its neighbours' mean.
 */
async function sandwiched(
  setup: Setup,
  baseline: Plan,
  plans: ReadonlyArray<{ plan: Plan; into: Series; label: string }>,
  baselines: Series,
  onDead?: (measurement: Measurement) => void,
): Promise<void> {
  const measureBaseline = async () => {
    const measured = await measure(setup, baseline);
    record(baselines, measured);
    return measured.rate;
  };
  let before = await measureBaseline();
  for (const { plan, into, label } of plans) {
    const measured = await measure(setup, plan);
    const after = await measureBaseline();
    const ratio = measured.rate / ((before + after) / 2);
    record(into, measured);
    into.ratios.push(ratio);
    if (measured.dead) onDead?.(measured);
    console.log(
      `${label}: ${format(measured.rate)}/s, ${ratio.toFixed(2)}× (baselines ${format(before)}, ${format(after)}/s), ${(measured.queries / RECEIVERS).toFixed(2)} queries per hostname, ${measured.handshakes.full} full and ${measured.handshakes.resumed} resumed handshakes${measured.dead ? `; dead agency: ${measured.dead.durations.length} attempts, ${measured.dead.queries} queries` : ''}`,
    );
    before = after;
  }
}

async function main(): Promise<void> {
  const receivers = await startReceivers(RECEIVERS);
  const setup: Setup = {
    receivers,
    dns: await startDnsServer({
      zones: {
        [DEAD_HOST]: { silent: true },
        ...Object.fromEntries(
          receivers.addresses.flatMap((address, i) => [
            [`r${i}.hooks.test`, { a: [address], ttl: TTL }],
            [`s${i}.hooks.test`, { a: [address], ttl: STEADY_TTL }],
          ]),
        ),
      },
    }),
    secret: generateSigningSecret(),
  };
  try {
    const ip: Plan = { naming: 'ip', delayMs: 0, deadAgency: false };
    const hostname = (delayMs: number): Plan => ({ naming: 'hostname', delayMs, deadAgency: false });
    // Warm-up: one measurement of each path.
    await measure(setup, ip);
    await measure(setup, hostname(20));

    // Hostnames against IP literals, each hostname measurement between two IP-literal ones.
    const byDelay = new Map<number, Series>(DELAYS_MS.map((delay) => [delay, emptySeries()]));
    const ipSeries = emptySeries();
    const plans = Array.from({ length: ROUNDS }, (_, round) =>
      (round % 2 === 0 ? DELAYS_MS : [...DELAYS_MS].reverse()).map((delay) => ({
        plan: hostname(delay),
        into: byDelay.get(delay) as Series,
        label: `round ${round + 1}, hostnames at ${delay} ms`,
      })),
    ).flat();
    const coldLoad = [loadavg()[0] as number];
    await sandwiched(setup, ip, plans, ipSeries);
    coldLoad.push(loadavg()[0] as number);
    if (process.env.BENCH_PARTS === 'cold') {
      console.log(coldSummary(ipSeries, byDelay, coldLoad).join('\n'));
      return;
    }

    // Steady state: one service per path for the whole part (as in a long-running worker), records
    // with a 5 s TTL so that every hostname is resolved again several times, DNS at 20 ms.
    const steadyIp: Plan = { ...ip, kept: await keptService(setup, ip) };
    const steadyHostPlan: Plan = { ...hostname(20), prefix: 's' };
    const steadyHost: Plan = { ...steadyHostPlan, kept: await keptService(setup, steadyHostPlan) };
    const steady = emptySeries();
    const steadyLoad = [loadavg()[0] as number];
    const steadyStarted = performance.now();
    const steadyQueriesBefore = setup.dns.queries();
    // Warm-up of both long-lived services: their first measurement opens every pool.
    await measure(setup, steadyIp);
    await measure(setup, steadyHost);
    const steadyPlans = Array.from({ length: STEADY_ROUNDS }, (_, round) => ({
      plan: steadyHost,
      into: steady,
      label: `steady round ${round + 1}`,
    }));
    const steadyBaselines = emptySeries();
    await sandwiched(setup, steadyIp, steadyPlans, steadyBaselines);
    const steadyWindows = Math.ceil((performance.now() - steadyStarted) / 1000 / STEADY_TTL);
    steadyLoad.push(loadavg()[0] as number);
    const steadyQueries = setup.dns.queries() - steadyQueriesBefore;
    await Promise.all([steadyIp.kept?.webhooks.close(), steadyHost.kept?.webhooks.close()]);

    // One agency whose DNS server never answers, against the same run without it (hostnames at 20 ms).
    const withDead = emptySeries();
    const withoutDead = emptySeries();
    const deadRuns: Measurement[] = [];
    // Both kinds idle until 6 s after their start: the dead agency's lookup times out at 5 s.
    const settled = (plan: Plan): Plan => ({ ...plan, settleMs: 6000 });
    const deadPlans = Array.from({ length: DEAD_ROUNDS }, (_, round) => ({
      plan: settled({ ...hostname(20), deadAgency: true }),
      into: withDead,
      label: `dead-zone round ${round + 1}`,
    }));
    const deadLoad = [loadavg()[0] as number];
    await sandwiched(setup, settled(hostname(20)), deadPlans, withoutDead, (run) => deadRuns.push(run));
    deadLoad.push(loadavg()[0] as number);

    const received = await setup.receivers.received();
    report({
      ip: ipSeries,
      byDelay,
      steady: { series: steady, baselines: steadyBaselines, queries: steadyQueries, windows: steadyWindows },
      withDead,
      withoutDead,
      deadRuns,
      received,
      loads: { cold: coldLoad, steady: steadyLoad, dead: deadLoad },
    });
  } finally {
    await setup.dns.close();
    await setup.receivers.close();
  }
}

const ratios = (series: Series) => series.ratios.map((ratio) => `${ratio.toFixed(2)}×`).join(', ');
const loadRange = (load: readonly number[]) => load.map((value) => value.toFixed(1)).join(' → ');

/** The table, per-measurement ratios and bars of the cold comparison. */
function coldSummary(ip: Series, byDelay: Map<number, Series>, load: readonly number[]): string[] {
  const ratio20 = median((byDelay.get(20) as Series).ratios);
  const maxQueries = Math.max(...[...byDelay.values()].flatMap((series) => series.queriesPerHost));
  const row = (path: string, delay: string, series: Series, ratio: string, queries: string) => [
    path,
    delay,
    format(median(series.rates)),
    ratio,
    queries,
    format(median(series.fullHandshakes)),
    format(median(series.resumedHandshakes)),
  ];
  return [
    markdownTable(
      [
        'path',
        'DNS delay',
        'deliveries/s',
        'ratio to IP literals',
        'DNS queries per hostname',
        'full handshakes',
        'resumed',
      ],
      [
        row('IP literals', '—', ip, '1.00×', '0'),
        ...DELAYS_MS.map((delay) => {
          const series = byDelay.get(delay) as Series;
          const queries = Math.max(...series.queriesPerHost).toFixed(2);
          return row('hostnames', `${delay} ms`, series, `${median(series.ratios).toFixed(2)}×`, queries);
        }),
      ],
    ),
    '',
    `Per measurement: ${DELAYS_MS.map((delay) => `${delay} ms ${ratios(byDelay.get(delay) as Series)}`).join('; ')}.`,
    `Load average (1 min) when this part started and ended: ${loadRange(load)}.`,
    '',
    `Bar: hostnames at a 20 ms DNS round trip ≥ 0.9× the IP-literal rate — ${ratio20 >= 0.9 ? 'met' : 'missed'} (${formatRatio(ratio20)}).`,
    `Bar: at most two queries (A and AAAA) per hostname per TTL — ${maxQueries <= 2 ? 'met' : 'missed'} (at most ${maxQueries.toFixed(2)} in any measurement).`,
  ];
}

function report(results: {
  ip: Series;
  byDelay: Map<number, Series>;
  steady: { series: Series; baselines: Series; queries: number; windows: number };
  withDead: Series;
  withoutDead: Series;
  deadRuns: Measurement[];
  received: number;
  loads: { cold: number[]; steady: number[]; dead: number[] };
}): void {
  const { ip, byDelay, steady, withDead, withoutDead, deadRuns, received, loads } = results;
  const steadyRatio = median(steady.series.ratios);
  const steadyPerHostPerTtl = steady.queries / RECEIVERS / steady.windows;
  const deadRatio = median(withDead.ratios);
  const deadDurations = deadRuns.flatMap((run) => run.dead?.durations ?? []);
  const deadKinds = new Set(deadRuns.flatMap((run) => run.dead?.errorKinds ?? []));
  const deadQueries = deadRuns.map((run) => run.dead?.queries ?? 0);
  const lines = [
    '## DNS: hostname receivers against IP literals',
    '',
    `${describeMachine()}; ${new Date().toISOString().slice(0, 10)}. ${RECEIVERS} HTTPS receivers in one child process, each on`,
    'its own loopback address (127.0.0.2, 127.0.0.3, …) and port, all with one certificate whose names are',
    `\`*.hooks.test\` and every one of those addresses. ${DELIVERIES.toLocaleString('en-US')} deliveries per measurement spread evenly over`,
    `${RECEIVERS} agencies, worker concurrency ${CONCURRENCY} and 8 per agency (the defaults). Command:`,
    '`pnpm --filter @svc/bench run dns`.',
    '',
    'A real DNS server on the loopback (UDP, DNS wire format through `dns-packet`) answers `r<i>.hooks.test` with',
    `receiver i's address, TTL ${TTL} s, after the delay shown; the services use it through \`urlPolicy.dnsServers\`.`,
    'Agency i sends to `https://r<i>.hooks.test:PORT_i/hooks` in the hostname path and to',
    '`https://127.0.0.<i+2>:PORT_i/hooks` in the IP-literal path: the same receivers, as many origins. For every',
    'measurement the configurations are saved through one service (`putConfig`, which checks each URL) and',
    'closed; a second service over the same store, with a cold DNS cache and cold connection pools, emits every',
    'delivery, then a worker is timed from its start to the last recorded 2xx. Each hostname measurement runs',
    'between two IP-literal measurements (the order of the two delays alternates from round to round) and is',
    'divided by their mean; ratios are medians of those per-measurement ratios, the other figures medians over',
    "all measurements of the path. Handshakes are the sender's completed TLS handshakes (undici's `connected`",
    'diagnostics channel, `isSessionReused()`). The DNS server runs in the sending process, so answering its',
    `queries is counted against the hostname path. The receivers answered ${received.toLocaleString('en-US')} requests in all.`,
    '',
    ...coldSummary(ip, byDelay, loads.cold),
    '',
    '### Steady state: a long-running service, records with a 5 s TTL',
    '',
    'The same comparison at a 20 ms DNS round trip, but each path keeps one service for this whole part, as a',
    `long-running worker process does (warm connection pools in both paths), and the hostnames' records have a`,
    `${STEADY_TTL} s TTL, so each name expires and is resolved again several times during the part; the rate includes`,
    'those refreshes. One warm-up measurement of each path opens the pools first. Queries are counted over the',
    'whole part, warm-up included, and divided by the hostnames and by the TTL windows the part lasted.',
    '',
    markdownTable(
      ['path', 'deliveries/s', 'ratio to IP literals', 'DNS queries per hostname per TTL'],
      [
        ['IP literals', format(median(steady.baselines.rates)), '1.00×', '0'],
        [
          `hostnames, 20 ms, TTL ${STEADY_TTL} s`,
          format(median(steady.series.rates)),
          `${steadyRatio.toFixed(2)}×`,
          steadyPerHostPerTtl.toFixed(2),
        ],
      ],
    ),
    '',
    `Per measurement: ${ratios(steady.series)}. ${format(steady.queries)} queries for ${RECEIVERS} hostnames over ${steady.windows} TTL windows of ${STEADY_TTL} s.`,
    `Load average (1 min) when this part started and ended: ${loadRange(loads.steady)}.`,
    '',
    `Same bars, steady state: ≥ 0.9× — ${steadyRatio >= 0.9 ? 'met' : 'missed'} (${formatRatio(steadyRatio)}); at most two queries per hostname per TTL — ${steadyPerHostPerTtl <= 2 ? 'met' : 'missed'} (${steadyPerHostPerTtl.toFixed(2)}).`,
    '',
    '### A DNS zone that never answers',
    '',
    `The same hostname run at 20 ms, plus one agency (${Math.ceil(DELIVERIES / RECEIVERS)} deliveries) whose hostname \`${DEAD_HOST}\``,
    "is never answered by the DNS server. The healthy agencies' rate is timed to their last 2xx and compared",
    'with the same run without that agency, measured before and after it. Every measurement of this part is',
    'followed by the same idle time (until 6 s after its start), since the runs with the dead agency only end',
    'when its lookup has timed out, and a measurement that follows idle time runs measurably slower here.',
    '',
    markdownTable(
      ['run', "healthy agencies' deliveries/s", 'ratio'],
      [
        ['hostnames at 20 ms, no dead zone', format(median(withoutDead.rates)), '1.00×'],
        [
          'same, plus one agency whose DNS never answers',
          format(median(withDead.rates)),
          `${deadRatio.toFixed(2)}×`,
        ],
      ],
    ),
    '',
    `Load average (1 min) when this part started and ended: ${loadRange(loads.dead)}.`,
    `Per measurement: ${ratios(withDead)}. The dead agency's attempts: ${deadDurations.length} in ${deadRuns.length} runs,`,
    `${format(Math.min(...deadDurations))}–${format(Math.max(...deadDurations))} ms each, all ended as \`${[...deadKinds].join('`, `')}\` (its`,
    'in-flight attempts share one lookup, cancelled at the 5 s lookup timeout); queries received for its name',
    `per run: ${deadQueries.join(', ')} (A and AAAA, with c-ares's own retries until the lookup is cancelled).`,
    '',
    `Bar: other agencies' rate ≥ 0.9× while one agency's DNS never answers — ${deadRatio >= 0.9 ? 'met' : 'missed'} (${formatRatio(deadRatio)}).`,
  ];
  writeBenchSection('dns', lines.join('\n'));
  console.log(lines.join('\n'));
}

await main();
