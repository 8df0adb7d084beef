/**
 * Id benchmark: the cost of one UUIDv7 from `@svc/webhooks-core`'s `newId()`, against the ways of making
 * one it could use instead, in one run; writes its section of docs/benchmarks.md. A delivery takes one
 * id (its record's), so the difference per id is the difference per delivery.
 *
 * `--quick` runs one short round (for checking the script); `--no-write` measures fully but only prints.
 */
import { randomFillSync } from 'node:crypto';
import { createIdGenerator, isUuidV7, newId } from '../../packages/core/src/ids';
import { describeMachine, markdownTable, writeBenchSection } from '../lib/report';
import { type MeasuredTask, measure } from '../verify/measure';

const quick = process.argv.includes('--quick');
const write = !quick && !process.argv.includes('--no-write');
const options = quick ? { rounds: 1, timeMs: 100, warmupMs: 20 } : { rounds: 15, timeMs: 250, warmupMs: 50 };
const BATCH = 256;

/** One delivery costs about this much engine time on the reference machine (docs/benchmarks.md, delivery). */
const DELIVERY_COST_US = { low: 50, high: 80 };

/** The random source `ids.ts` used before: 16 bytes at a time from a pool refilled 4 KiB at a time. */
function pooledFillRandom(): (bytes: Uint8Array) => void {
  const pool = new Uint8Array(4096);
  let offset = pool.length;
  return (bytes) => {
    if (offset + bytes.length > pool.length) {
      globalThis.crypto.getRandomValues(pool);
      offset = 0;
    }
    for (let index = 0; index < bytes.length; index++) bytes[index] = pool[offset + index] as number;
    offset += bytes.length;
  };
}

/**
 * The plainest UUIDv7 with the same guarantees (time first, a 12-bit counter within a millisecond seeded
 * below 2048, never going backwards): the random part of `crypto.randomUUID()` with the time and the
 * counter written in front of it by string concatenation.
 */
function randomUuidGenerator(): () => string {
  let lastMs = -1;
  let counter = 0;
  return () => {
    const random = globalThis.crypto.randomUUID(); // xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx
    const wallMs = Date.now();
    if (wallMs > lastMs) {
      lastMs = wallMs;
      counter = Number.parseInt(random.slice(15, 18), 16) & 0x7ff;
    } else if (++counter >= 0x1000) {
      lastMs++;
      counter = Number.parseInt(random.slice(15, 18), 16) & 0x7ff;
    }
    const time = lastMs.toString(16).padStart(12, '0');
    return `${time.slice(0, 8)}-${time.slice(8)}-7${counter.toString(16).padStart(3, '0')}-${random.slice(19)}`;
  };
}

interface Contender {
  name: string;
  make: () => () => string;
}

const contenders: Contender[] = [
  { name: '`newId()` as shipped', make: () => newId },
  {
    name: 'pooled random bytes (4 KiB pool)',
    make: () => createIdGenerator({ fillRandom: pooledFillRandom() }),
  },
  {
    name: '`crypto.getRandomValues` per id',
    make: () => createIdGenerator({ fillRandom: (bytes) => globalThis.crypto.getRandomValues(bytes) }),
  },
  {
    name: "node:crypto's `randomFillSync` per id",
    make: () => createIdGenerator({ fillRandom: (bytes) => randomFillSync(bytes) }),
  },
  { name: '`crypto.randomUUID()` + string concatenation', make: randomUuidGenerator },
];

/**
 * Two uses per contender: making the id, and making it then using it as a Map key once, as the stores
 * do: a string built by concatenation is flattened by V8 the first time it is hashed, so that cost
 * shows only in the second use.
 */
const USES = ['id', 'id + Map key'] as const;
type Use = (typeof USES)[number];

function taskId(contender: Contender, use: Use): string {
  return `${contender.name} | ${use}`;
}

function tasks(): MeasuredTask[] {
  const map = new Map<string, number>();
  return contenders.flatMap((contender) => {
    const next = contender.make();
    for (let i = 0; i < 3; i++) {
      const id = next();
      if (!isUuidV7(id)) throw new Error(`${contender.name} made ${id}, not a UUIDv7`);
    }
    const keyed = () => {
      const id = next();
      map.set(id, 1);
      map.delete(id);
      return id;
    };
    return [
      { id: taskId(contender, 'id'), call: next, isAsync: false, batch: BATCH },
      { id: taskId(contender, 'id + Map key'), call: keyed, isAsync: false, batch: BATCH },
    ];
  });
}

function nsPerId(ops: Map<string, number>, contender: Contender, use: Use): number {
  return 1e9 / (ops.get(taskId(contender, use)) ?? Number.NaN);
}

function signed(value: number, digits: number, unit: string): string {
  return `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(digits)} ${unit}`;
}

function table(ops: Map<string, number>): string {
  const pooled = contenders[1] as Contender;
  const header = [
    'how the id is made',
    ...USES.map((use) => `${use}: ns per id`),
    'id + Map key: more than the pool',
    `the same, as a share of one delivery (${DELIVERY_COST_US.low}–${DELIVERY_COST_US.high} µs)`,
  ];
  const rows = contenders.map((contender) => {
    const difference = nsPerId(ops, contender, 'id + Map key') - nsPerId(ops, pooled, 'id + Map key');
    const share = (us: number) => signed((difference / (us * 1000)) * 100, 1, '%');
    return [
      contender.name,
      ...USES.map((use) => nsPerId(ops, contender, use).toFixed(0)),
      signed(difference, 0, 'ns'),
      `${share(DELIVERY_COST_US.high)} to ${share(DELIVERY_COST_US.low)}`,
    ];
  });
  return markdownTable(header, rows);
}

function section(ops: Map<string, number>): string {
  return `## ids

Run \`pnpm --filter @svc/bench run ids\`.

- Date: ${new Date().toISOString().slice(0, 10)}; ${describeMachine()}
- Method: tinybench, ${options.rounds} interleaved rounds of ${options.timeMs} ms per task; each sample times
  ${BATCH} ids; the figure is the median over rounds of the median sample, as time per id.
- All contenders make valid, time-ordered UUIDv7s with the same monotonic counter; the four rows that go
  through \`createIdGenerator\` differ only in where the random bytes come from. \`newId()\` as shipped and
  \`crypto.getRandomValues\` per id are the same code: their difference is the noise of the run.
- A delivery takes one id, and costs the engine about ${DELIVERY_COST_US.low}–${DELIVERY_COST_US.high} µs on this machine (delivery section above).

${table(ops)}

${decision(ops)}
`;
}

/**
 * The decision these figures back, with this run's figures. Node 24 was checked once with `--no-write`;
 * its figures are recorded here.
 */
function decision(ops: Map<string, number>): string {
  const pooled = contenders[1] as Contender;
  const saved =
    nsPerId(ops, contenders[0] as Contender, 'id + Map key') - nsPerId(ops, pooled, 'id + Map key');
  const share = (us: number) => `${((saved / (us * 1000)) * 100).toFixed(1)} %`;
  return `Decision: **simplified**. \`newId()\` takes its 16 random bytes from \`crypto.getRandomValues\` per id.
The 4 KiB pool it drew from before saves ${(saved / 1000).toFixed(1)} µs per id in this run, that is per delivery:
${share(DELIVERY_COST_US.high)} to ${share(DELIVERY_COST_US.low)} of what a delivery costs the engine, below what a user notices (the bar
for keeping a speed trick is more than 15 %, as for the verify HMAC). The pooled source stays in this benchmark
(\`pooledFillRandom\`) so the comparison can be re-run.

${NODE_24_CHECK}`;
}

const NODE_24_CHECK =
  'Node 24 (24.21.0, same machine, 2026-11-23, two runs with `--no-write`): the pool saves 2.0 to 2.4 µs ' +
  'per id, 2.4 % to 4.9 % of a delivery.';

async function main(): Promise<void> {
  const all = tasks();
  console.log(`ids bench: ${all.length} tasks, ${options.rounds} round(s)…`);
  const ops = await measure(all, options);
  const markdown = section(ops);
  console.log(markdown);
  if (!write) {
    console.log('(--quick or --no-write: docs/benchmarks.md not written)');
  } else {
    writeBenchSection('ids', markdown);
    console.log('wrote the ids section of docs/benchmarks.md');
  }
}

await main();
