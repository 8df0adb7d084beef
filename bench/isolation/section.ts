import { describeMachine, formatRatio, markdownTable } from '../lib/report';
import { diagnose, type LevelDiagnostics } from './diagnostics';
import { CLOSE_GRACE_MS } from './measurement';
import type { LevelRuns, LevelSummary } from './summary';
import { summarize } from './summary';
import type { TestSendResult } from './test-sends';
import { type TransportStats, withinCaps } from './transport-stats';

/** What the section reports, besides the measurements. */
export interface RunFacts {
  agencies: number;
  perAgency: number;
  /** Rounds over every line that ran (within the time budget). */
  rounds: number;
  /** The whole run, in seconds. */
  seconds: number;
  /** 1-minute load average at the start and at the end of the run. */
  load: [number, number];
  /** No round starts that would end after this many seconds of the run. */
  budgetS: number;
  /** Busy processes that ran beside the benchmark (`BENCH_CPU_HOGS`). */
  cpuHogs: number;
}

const NAMING_LABEL = { own: 'own hostnames', shared: 'shared origin' } as const;

const count = (n: number) => Math.round(n).toLocaleString('en-US');
const times = formatRatio;
const verdict = (met: boolean | null) => (met === null ? 'not measured' : met ? 'met' : 'missed');

function rateCell(line: LevelSummary): string {
  if (line.bounded) return `< ${count(line.rate)}`;
  const unfinished = line.unfinished > 0 ? ` (${line.unfinished} unfinished)` : '';
  return `${count(line.rate)}${unfinished}`;
}

/** The hanging share, and whether the line is its idle twins. */
function levelLabel(line: { hangingPercent: number; idle: boolean }): string {
  return `${line.hangingPercent} %${line.idle ? ', idle' : ''}`;
}

function twinCell(line: LevelSummary): string {
  if (line.hangingPercent === 0 || line.idle) return '—';
  return line.twinRatio === null ? 'n/a' : times(line.twinRatio);
}

function ratioCell(line: LevelSummary): string {
  if (line.hangingPercent === 0) return '1.00×';
  if (line.ratio === null) return 'n/a';
  return line.bounded ? `< ${times(line.ratio)}` : times(line.ratio);
}

function barCell(line: LevelSummary): string {
  if (line.bar === null) return '—';
  return `≥ ${line.bar.toFixed(1)}×: ${line.met ? 'met' : 'missed'}`;
}

function peakCell(peak: TransportStats | null, what: 'pools' | 'sockets'): string {
  if (!peak) return 'n/a';
  return `${count(peak[what])} / ${count(what === 'pools' ? peak.maxPools : peak.maxSockets)}`;
}

function summaryTable(lines: readonly LevelSummary[]): string {
  return markdownTable(
    [
      'backend',
      'naming',
      'hanging',
      "healthy agencies' deliveries/s",
      'ratio to 0 %',
      'bar',
      'ratio to idle twin',
      'peak pools / cap',
      'peak sockets / cap',
      'lost',
    ],
    lines.map((line) => [
      line.backend,
      NAMING_LABEL[line.naming],
      levelLabel(line),
      rateCell(line),
      ratioCell(line),
      barCell(line),
      twinCell(line),
      peakCell(line.peak, 'pools'),
      peakCell(line.peak, 'sockets'),
      line.lost === null ? 'not audited' : String(line.lost),
    ]),
  );
}

function tally(counts: ReadonlyMap<string, number>): string {
  if (counts.size === 0) return 'none';
  return [...counts].map(([key, n]) => `${key} ×${count(n)}`).join(', ');
}

function hangingCells(line: LevelSummary, why: LevelDiagnostics): [string, string, string, string] {
  if (line.hangingPercent === 0 || line.idle) return ['—', '—', '—', '—'];
  const { count: attempts, minMs, maxMs, endings } = why.hangingAttempts;
  const end = why.hangingEnd;
  return [
    String(why.peakHeld),
    tally(endings),
    attempts === 0 ? '—' : `${count(minMs)}–${count(maxMs)}`,
    `${end.pendingRetry} / ${end.pendingUnattempted} / ${end.failed}`,
  ];
}

function diagnosticsTable(levels: ReadonlyArray<{ line: LevelSummary; why: LevelDiagnostics }>): string {
  return markdownTable(
    [
      'backend',
      'naming',
      'hanging',
      'healthy delivered (worst run)',
      'first healthy delivery after start (median)',
      'longest event-loop stall (median)',
      'healthy attempts failed',
      'worker peak in flight',
      'held by hanging receivers (peak)',
      'TLS handshakes per run: full / resumed',
      'hanging attempts ended as',
      'hanging attempt ms',
      'hanging deliveries at the end: retry due / not attempted / failed',
      'longest worker.stop()',
    ],
    levels.map(({ line, why }) => {
      const [held, endings, durations, end] = hangingCells(line, why);
      return [
        line.backend,
        NAMING_LABEL[line.naming],
        levelLabel(line),
        `${count(why.delivered.count)} / ${count(why.delivered.expected)}`,
        why.firstDeliveryMs === null ? '—' : `${count(why.firstDeliveryMs)} ms`,
        `${count(why.longestStallMs)} ms`,
        tally(why.healthyFailures),
        String(why.peakInFlight),
        held,
        `${count(why.handshakes.full)} / ${count(why.handshakes.resumed)}`,
        endings,
        durations,
        end,
        `${(why.stopMs / 1000).toFixed(1)} s`,
      ];
    }),
  );
}

function testSendLines(result: TestSendResult): string[] {
  const others = result.others.size === 0 ? '' : ` Other results: ${tally(result.others)}.`;
  const after = !result.after
    ? ''
    : result.after.sockets === 0
      ? `Every socket was closed ${Math.round(result.closedAfterMs)} ms after the last send returned; ${count(result.after.pools)} pools open then.`
      : `${count(result.after.sockets)} sockets and ${count(result.after.pools)} pools still open ${Math.round(result.closedAfterMs)} ms after the last send returned.`;
  return [
    '### Test sends to new origins',
    '',
    `${result.agencies} agencies, each configured with its own origin that nothing has sent to before`,
    '(`https://t<i>.hooks.test:PORT/…`, the answering receiver), each call `sendTest` once, all at once',
    '(one `Promise.allSettled` over every call), on the memory backend (`sendTest` reads one configuration and',
    'records nothing).',
    '',
    markdownTable(
      ['test sends', 'answered 2xx', 'seconds', 'peak pools / cap', 'peak sockets / cap'],
      [
        [
          String(result.agencies),
          String(result.answered),
          result.seconds.toFixed(2),
          peakCell(result.peak.transport, 'pools'),
          peakCell(result.peak.transport, 'sockets'),
        ],
      ],
    ),
    '',
    `${others.trim()} ${after}`.trim(),
  ];
}

function barLines(lines: readonly LevelSummary[], testSends: TestSendResult): string[] {
  const hanging = lines.filter((line) => line.met !== null);
  const met = hanging.filter((line) => line.met).length;
  const capChecks = [...lines.map((line) => line.withinCaps), withinCaps(testSends.peak.transport)];
  const allWithin = capChecks.includes(null) ? null : capChecks.every(Boolean);
  const lost = lines.map((line) => line.lost);
  const lostKnown = lost.every((n) => n !== null);
  const lostSum = lost.reduce<number>((sum, n) => sum + (n ?? 0), 0);
  return [
    `Bar: healthy agencies ≥ 0.9× the all-healthy rate with 10 % of receivers hanging and ≥ 0.8× with 30 %, own hostnames and shared origin, every backend — ${met === hanging.length ? 'met' : 'missed'} (${met} of ${hanging.length} lines met).`,
    `Bar: pools and sockets within their caps in every run, test sends included — ${verdict(allWithin)}${allWithin === null ? ' (the service has no `transportStats()`)' : ''}.`,
    `Bar: nothing lost (every delivery \`success\`, \`failed\`, or \`pending\` with its next attempt scheduled and queued) — ${lostKnown ? (lostSum === 0 ? 'met' : `missed (${lostSum} lost)`) : 'not measured (an audit failed)'}.`,
  ];
}

function hogText(hogs: number): string {
  if (hogs === 0) return '';
  return `; ${hogs} busy-looping \`node\` processes beside it, \`BENCH_CPU_HOGS=${hogs}\``;
}

/**
 * A healthy receiver answers every request at once, so an attempt of a healthy
 * agency that timed out was charged for time spent queueing in the sender.
 */
function healthyTimeoutBar(levels: readonly LevelDiagnostics[]): string {
  const timedOut = levels.reduce((sum, why) => sum + (why.healthyFailures.get('timeout') ?? 0), 0);
  const verdictText = timedOut === 0 ? 'met' : `missed (${count(timedOut)} timed out)`;
  return `Bar: no attempt of a healthy agency fails with \`timeout\` (its receiver answers at once) — ${verdictText}.`;
}

function methodLines(facts: RunFacts): string[] {
  const [loadBefore, loadAfter] = facts.load.map((load) => load.toFixed(1));
  const rounds = `${facts.rounds} round${facts.rounds === 1 ? '' : 's'}`;
  return [
    `${describeMachine()}; ${new Date().toISOString().slice(0, 10)}. ${facts.agencies} agencies × ${facts.perAgency} deliveries per`,
    `measurement, ${rounds}; whole run ${Math.round(facts.seconds)} s; 1-minute load average ${loadBefore} at the start and ${loadAfter}`,
    `at the end (other processes share these cores${hogText(facts.cpuHogs)}). Command: \`pnpm --filter @svc/bench run isolation\`.`,
    '',
    'The service and the worker run with default settings: `createWorker(webhooks)` without options, and',
    '`createWebhookService` given only the store, the queue, a resolver hook (`urlPolicy.resolve`: `hooks.test` and',
    '`*.hooks.test` are 127.0.0.1, TTL 300 s; `allowPrivateNetworks` on) and the test CA (`transport.tls`). The',
    'receivers run in one child process: one answers 200, one completes the TLS handshake, reads the request and',
    'never answers (a hung app server behind a load balancer), one serves a shared origin and hangs on `/hang/…`',
    "paths only. _Own hostnames_: agency i sends to `a<i>.hooks.test`, the hanging agencies' names on the hanging",
    'receiver; _shared origin_: every agency sends to `hooks.test` (one origin), `/ok/<agency>` or `/hang/<agency>`.',
    '',
    'Every measurement starts from a fresh backend (memory; PostgreSQL on a new migrated schema; Redis, the linked',
    'pair `createRedisWebhooks`, on a new key prefix) and a new service (cold DNS cache, no connection open yet),',
    'emits the whole backlog first, agency by agency with the hanging agencies first (the harder order: they take',
    'the first turns), then times the worker',
    "from `start()` to the last healthy agency's delivery recorded as delivered. Rate = healthy agencies' deliveries",
    '(100 %, 90 % or 70 % of them) ÷ that time. Each round measures, per backend and naming in turn, 0 %, 10 % and',
    'its idle twin, 30 % and its idle twin, 0 % (in even rounds 30 % before 10 %, and each twin before its pair);',
    'each of them is divided by the mean of the two 0 % ones around it (no ratio when one of them did not finish).',
    'An _idle twin_ (`10 %, idle`) configures the same agencies, but those that hang in its pair send nothing: the',
    'healthy agencies deliver the same work with nobody hanging. Its ratio to 0 % is what less work alone does to',
    'that ratio (it tends to the healthy share when each agency is held to its own window rather than to a busy',
    "worker); the _ratio to idle twin_, a hanging measurement's rate ÷ its twin's, is what the hanging receivers",
    'cost the healthy agencies (1.00×: nothing). It is reported, not judged: the bar is the ratio to 0 %.',
    'Ratios are medians over rounds, rates medians over',
    'measurements; one warm-up measurement per backend is not reported. A further round starts only if it would',
    `end within the time budget (${facts.budgetS} s). A hanging measurement whose healthy deliveries are not all delivered`,
    'within 3× the time of the 0 % measurement before it (at least 10 s, at most 30 s), or a 0 % one not done in',
    '30 s, is stopped there; a hanging share stopped so is not measured again, and its rate and ratio are upper',
    'bounds (`<`).',
    '',
    'After the timed part the worker is stopped (it waits for attempts held by hanging receivers to reach the',
    'attempt timeout) while the next measurement runs, then the deliveries are audited through the store and the',
    'queue, and the service and backend are closed, between two timed parts, never during one: _lost_ counts',
    'deliveries missing from the store, `pending` without `nextRetryAt`, or `pending` without a queue entry;',
    `a problem is reported if the hanging receivers still hold a request open ${CLOSE_GRACE_MS / 1000} s after \`worker.stop()\` resolved`,
    '(the sender closes each held connection when its attempt ends; the receivers see it a moment later).',
    'Peaks of `webhooks.transportStats()` (and its own `peakSockets`) are sampled every 10 ms from before the',
    'worker starts until it has stopped.',
  ];
}

/** The `isolation` section of docs/benchmarks.md. */
export function buildSection(
  levels: readonly LevelRuns[],
  testSends: TestSendResult,
  facts: RunFacts,
): string {
  const analysed = levels.map((level) => ({ line: summarize(level), why: diagnose(level) }));
  const lines = analysed.map(({ line }) => line);
  const listed = (pick: (line: LevelSummary) => readonly number[]) =>
    lines
      .filter((line) => pick(line).length > 0)
      .map(
        (line) => `${line.backend} ${line.naming} ${levelLabel(line)}: ${pick(line).map(times).join(', ')}`,
      );
  const perRun = listed((line) => line.ratios);
  const perTwin = listed((line) => line.twinRatios);
  const problems = analysed.flatMap(({ why }) => why.problems);
  const workerErrors = analysed.filter(({ why }) => why.workerErrors.size > 0);
  return [
    "## Isolation: healthy agencies while other agencies' receivers hang",
    '',
    ...methodLines(facts),
    '',
    summaryTable(lines),
    '',
    ...(perRun.length > 0 ? [`Ratio of each measurement: ${perRun.join('; ')}.`, ''] : []),
    ...(perTwin.length > 0
      ? [`Ratio of each hanging measurement to its idle twin: ${perTwin.join('; ')}.`, '']
      : []),
    ...barLines(lines, testSends),
    healthyTimeoutBar(analysed.map(({ why }) => why)),
    '',
    '### Where the time goes',
    '',
    "Over each line's runs: the healthy deliveries delivered in its worst run, how long after the worker's start",
    'the first healthy delivery was recorded (a start-up every measurement pays, whatever share hangs: claims,',
    'first connections; the rate counts it, so it weighs more where fewer agencies are healthy), the longest the',
    "worker's event loop was late to run a timer while timed (what a host API in the same process would wait at",
    "worst; the benchmark itself adds a little), the healthy agencies' attempts that failed (a healthy receiver",
    'never fails one by itself), the most attempts in flight in the worker, the most requests the hanging',
    'receivers held open at once (worker slots and sockets stuck there), the TLS connections the receivers',
    'accepted per run (median), by handshake: full, or resuming an earlier session (each costs the sender CPU, a',
    'full one more, and a cold pool opens them whatever share hangs), how the attempts to hanging receivers ended',
    "and how long they took, where the hanging agencies' deliveries stood once the worker had stopped, and the",
    'longest `worker.stop()` (it waits for the attempts still held by hanging receivers).',
    '',
    diagnosticsTable(analysed),
    '',
    ...(workerErrors.length > 0
      ? [
          `Worker errors (\`onError\`): ${workerErrors.map(({ line, why }) => `${line.backend} ${line.naming} ${levelLabel(line)}: ${tally(why.workerErrors)}`).join('; ')}.`,
          '',
        ]
      : []),
    ...(problems.length > 0 ? [`Problems while settling: ${problems.join('; ')}.`, ''] : []),
    ...testSendLines(testSends),
  ].join('\n');
}
