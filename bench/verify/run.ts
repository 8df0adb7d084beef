/**
 * Verify benchmark: @svc/webhooks-verify against the raw node:crypto floor and against svix,
 * standardwebhooks and stripe, its hand-built HMAC against `createHmac` in the same code path, and its
 * Standard Webhooks verification against standardwebhooks, svix and a Web Crypto floor on one shared
 * input, for 100 B, 1 KiB and 64 KiB bodies, all in one run. Writes its section of docs/benchmarks.md. Build the
 * package first: `pnpm --filter @svc/webhooks-verify build`.
 *
 * `--quick` runs one short round (for checking the script); `--no-write` measures fully but only prints
 * (for a check on another Node version); `--strict` exits 1 when a bar is missed.
 */
import { readFileSync } from 'node:fs';
import { describeMachine, markdownTable, writeBenchSection } from '../lib/report';
import { type Contender, contenders, hmacPairs, type Measured, signers } from './contenders';
import { BODY_SIZES, type BodySize, jsonBody } from './fixtures';
import { type MeasuredTask, measure } from './measure';
import {
  STANDARDWEBHOOKS,
  type StandardContender,
  standardContenders,
  WEB_FLOOR,
} from './standard-contenders';

const quick = process.argv.includes('--quick');
const write = !quick && !process.argv.includes('--no-write');
const strict = process.argv.includes('--strict');
const options = quick ? { rounds: 1, timeMs: 100, warmupMs: 20 } : { rounds: 5, timeMs: 250, warmupMs: 50 };

const SIZE_LABELS: Record<BodySize, string> = { 100: '100 B', 1024: '1 KiB', 65536: '64 KiB' };

// The Standard Webhooks rows share names with rows of the main table (svix, standardwebhooks) but not
// their input, so their tasks carry a prefix.
const STANDARD_PREFIX = 'standard: ';

function taskId(contender: Measured, size: BodySize): string {
  const prefix = standardContenders.includes(contender as StandardContender) ? STANDARD_PREFIX : '';
  return `${prefix}${contender.name} @ ${SIZE_LABELS[size]}`;
}

/** Calls per timed sample: enough to dwarf the timer at small bodies, few at 64 KiB. */
function batchFor(size: BodySize): number {
  return size >= 65_536 ? 4 : 64;
}

async function prepareTasks(): Promise<MeasuredTask[]> {
  const tasks: MeasuredTask[] = [];
  for (const size of BODY_SIZES) {
    const body = jsonBody(size);
    for (const contender of [...contenders, ...signers, ...standardContenders]) {
      const call = contender.prepare(body);
      // Every contender must accept its own valid delivery, or it would be timing an error path.
      const result = await call();
      if (!result) throw new Error(`${taskId(contender, size)} did not verify its input`);
      const isAsync = call() instanceof Promise;
      tasks.push({ id: taskId(contender, size), call, isAsync, batch: batchFor(size) });
    }
  }
  return tasks;
}

function version(pkg: string): string {
  const url = new URL(`../node_modules/${pkg}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

function formatOps(ops: number): string {
  return Math.round(ops).toLocaleString('en-US');
}

function results(ops: Map<string, number>) {
  const get = (name: string, size: BodySize) => ops.get(`${name} @ ${SIZE_LABELS[size]}`) ?? Number.NaN;
  const ratio = (contender: Contender, size: BodySize) =>
    get(contender.name, size) /
    get(contender.floor === 'floor' ? 'raw node:crypto floor' : 'raw floor + JSON.parse', size);
  return { get, ratio };
}

function table(ops: Map<string, number>): string {
  const { get, ratio } = results(ops);
  const header = [
    'contender',
    'parses',
    'compared with',
    ...BODY_SIZES.map((s) => `${SIZE_LABELS[s]} ops/s (× floor)`),
  ];
  const rows = contenders.map((c) => [
    c.name,
    c.parses ? 'yes' : 'no',
    c.floor,
    ...BODY_SIZES.map((size) => `${formatOps(get(c.name, size))} (${ratio(c, size).toFixed(2)}×)`),
  ]);
  return markdownTable(header, rows);
}

/** ops/s of a Standard Webhooks row, and its ratio to the row it is compared with. */
function standardResults(ops: Map<string, number>) {
  const { get } = results(ops);
  const getStandard = (name: string, size: BodySize) => get(`${STANDARD_PREFIX}${name}`, size);
  const ratio = (contender: StandardContender, size: BodySize) =>
    getStandard(contender.name, size) / getStandard(contender.comparedWith, size);
  return { get: getStandard, ratio };
}

function standardTable(ops: Map<string, number>): string {
  const { get, ratio } = standardResults(ops);
  const header = [
    'contender',
    'parses',
    'compared with',
    ...BODY_SIZES.map((s) => `${SIZE_LABELS[s]} ops/s (×)`),
  ];
  const rows = standardContenders.map((c) => [
    c.name,
    c.parses ? 'yes' : 'no',
    c.comparedWith,
    ...BODY_SIZES.map((size) => `${formatOps(get(c.name, size))} (${ratio(c, size).toFixed(2)}×)`),
  ]);
  return markdownTable(header, rows);
}

/** Gain of the hand-built HMAC over `createHmac` on one path: ops/s ratio minus one. */
function gain(ops: Map<string, number>, pair: (typeof hmacPairs)[number], size: BodySize): number {
  const { get } = results(ops);
  return get(pair.handBuilt, size) / get(pair.createHmac, size) - 1;
}

function formatGain(value: number): string {
  return `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(0)} %`;
}

function hmacTable(ops: Map<string, number>): string {
  const { get } = results(ops);
  const header = [
    'path',
    ...BODY_SIZES.map((s) => `${SIZE_LABELS[s]}: hand-built / createHmac ops/s (gain)`),
  ];
  const rows = hmacPairs.map((pair) => [
    pair.path,
    ...BODY_SIZES.map(
      (size) =>
        `${formatOps(get(pair.handBuilt, size))} / ${formatOps(get(pair.createHmac, size))} (${formatGain(gain(ops, pair, size))})`,
    ),
  ]);
  return markdownTable(header, rows);
}

interface Bar {
  text: string;
  met: boolean;
}

const VERIFY_PAIR = hmacPairs[1];

/**
 * The decision these figures back, with this run's figures; the last bar re-checks it on every run.
 * Node 24 was checked once with `--no-write`; its figures are recorded here.
 */
function hmacDecision(ops: Map<string, number>): string {
  const at = (size: BodySize) => formatGain(gain(ops, VERIFY_PAIR, size));
  return `Decision: **keep** the hand-built HMAC. The bar for keeping a speed trick is a gain a user notices:
more than 15 % on \`verifyWebhook\` at 1 KiB on Node 20. In this run it gives \`verifyWebhook\` ${at(100)} at
100 B and ${at(1024)} at 1 KiB. At 64 KiB both variants run \`createHmac\` (the package streams bodies over
16 KiB through it), so they differ only by noise there.

${NODE_24_CHECK}`;
}

const NODE_24_CHECK =
  'Node 24 (24.21.0, same machine, 2026-11-23, three runs with `--no-write`): `verifyWebhook` +70 % to +75 % ' +
  'at 100 B, +39 % to +116 % at 1 KiB, 0 % to +5 % at 64 KiB; `verifyWebhookSignature` +85 % to +96 %, ' +
  '+59 % to +74 %, −2 % to 0 %. The gain is not Node-20-only.';

function bars(ops: Map<string, number>): Bar[] {
  const { get } = results(ops);
  const at = (name: string) => get(name, 1024);
  const sig = at('@svc verifyWebhookSignature');
  const full = at('@svc verifyWebhook');
  const floorFull = at('raw floor + JSON.parse');
  return [
    { text: 'verifyWebhookSignature ≥ 0.9× the raw floor', met: sig >= 0.9 * at('raw node:crypto floor') },
    {
      text: 'verifyWebhookSignature ahead of stripe verifyHeader',
      met: sig > at('stripe webhooks.signature.verifyHeader'),
    },
    { text: 'verifyWebhook ≥ 0.9× the raw floor + JSON.parse', met: full >= 0.9 * floorFull },
    {
      text: 'verifyWebhook ahead of stripe constructEvent',
      met: full > at('stripe webhooks.constructEvent'),
    },
    { text: 'verifyWebhook ahead of svix', met: full > at('svix Webhook.verify') },
    { text: 'verifyWebhook ahead of standardwebhooks', met: full > at('standardwebhooks Webhook.verify') },
    {
      text: 'the hand-built HMAC keeps verifyWebhook at least 15 % ahead of the createHmac variant',
      met: gain(ops, VERIFY_PAIR, 1024) >= 0.15,
    },
    ...standardBars(ops),
  ];
}

function standardBars(ops: Map<string, number>): Bar[] {
  const { get } = standardResults(ops);
  const at = (name: string) => get(name, 1024);
  const ours = at('@svc verifyStandardWebhook');
  return [
    {
      text: 'Standard Webhooks: verifyStandardWebhook ≥ 3× standardwebhooks (same input)',
      met: ours >= 3 * at(STANDARDWEBHOOKS),
    },
    {
      text: 'Standard Webhooks: verifyStandardWebhook ahead of svix (same input)',
      met: ours > at('svix Webhook.verify'),
    },
    {
      text: 'Standard Webhooks: verifyStandardWebhookSignatureAsync ≥ 0.9× the Web Crypto floor',
      met: at('@svc verifyStandardWebhookSignatureAsync (Web Crypto)') >= 0.9 * at(WEB_FLOOR),
    },
  ];
}

function section(ops: Map<string, number>, checked: Bar[]): string {
  const versions = ['@svc/webhooks-verify', 'stripe', 'svix', 'standardwebhooks', 'tinybench']
    .map((pkg) => `${pkg} ${version(pkg)}`)
    .join(', ');
  return `## verify

Run \`pnpm --filter @svc/bench run verify\` (after \`pnpm --filter @svc/webhooks-verify build\`).

- Date: ${new Date().toISOString().slice(0, 10)}; ${describeMachine()}
- Versions: ${versions}
- Method: tinybench, ${options.rounds} interleaved rounds of ${options.timeMs} ms per task; each sample times a
  batch of calls (64, or 4 at 64 KiB); the figure is the median over rounds of the median sample.
  Bodies are JSON objects of exactly 100 B, 1 KiB and 64 KiB, passed as strings; every call verifies a
  valid delivery, with the timestamp check on where the library has one.
- Floor: \`\`createHmac('sha256', secret).update(\`\${t}.\${body}\`)\`\` + \`timingSafeEqual\`, given \`t\` and \`v1\`
  already split out of the header and no timestamp check; "+ JSON.parse" also parses the body.
  Ratios compare each contender with the floor that does the same work (parsing or not).
- svix and standardwebhooks also parse the body; stripe's constructEvent parses, verifyHeader does not.
- The @svc Node entry builds the HMAC by hand (RFC 2104) from node:crypto's one-shot \`hash()\` with the
  key's pads cached per secret. The "createHmac variant" rows are the same code path with
  \`createHmac(…).update(\`\${t}.\`).update(body).digest()\` in its place (bench/verify/create-hmac-variant.ts).

${table(ops)}

### verify: hand-built HMAC versus createHmac

The package's path against the same path with \`createHmac\`, from the table above (and \`signWebhook\`,
which \`@svc/webhooks-core\` calls once per delivery attempt, measured in the same run). Gain: how much
more verifications (or signatures) per second the hand-built HMAC gives.

${hmacTable(ops)}

${hmacDecision(ops)}

### verify: Standard Webhooks

The same run, on one shared input per body size: a \`webhook-id\`, \`webhook-timestamp\` and
\`webhook-signature: v1,…\` set signed by @svc/webhooks-verify, verified by each contender with the same
key (the 64 UTF-8 bytes of the hex secret; standardwebhooks and svix take its \`whsec_\` form). The Node
rows are compared with standardwebhooks, the Web Crypto row with a Web Crypto floor:
\`crypto.subtle.verify('HMAC', key, signature, content)\` with the key imported once before the run and
the id, timestamp and signature text handed over already split out of the headers (no header parsing,
no timestamp check). Like the node:crypto floor, which decodes its hex \`v1\` on each call, it decodes the
base64 signature (\`atob\`) and encodes the content from the string body on each call, as any verifier
must.

${standardTable(ops)}

Bars (1 KiB, same run):

${checked.map((bar) => `- ${bar.met ? 'met' : '**missed**'}: ${bar.text}`).join('\n')}
`;
}

async function main(): Promise<void> {
  const tasks = await prepareTasks();
  console.log(`verify bench: ${tasks.length} tasks, ${options.rounds} round(s)…`);
  const ops = await measure(tasks, options);
  const checked = bars(ops);
  const markdown = section(ops, checked);
  console.log(markdown);
  if (!write) {
    console.log('(--quick or --no-write: docs/benchmarks.md not written)');
  } else {
    writeBenchSection('verify', markdown);
    console.log('wrote the verify section of docs/benchmarks.md');
  }
  if (strict && checked.some((bar) => !bar.met)) process.exitCode = 1;
}

await main();
