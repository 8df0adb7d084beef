/**
 * Store layout micro-benchmark behind the choice in docs/redis.md: a delivery as
 * a HASH (inserted record JSON + last update JSON + the fields scripts compare)
 * versus one JSON string whose compare-and-set script decodes and re-encodes it
 * with Redis' cjson. Measures insert, get and CAS update of the same records.
 * Run: `pnpm --filter @svc/bench run redis:layout`.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { removeKeysUnder } from './redis-keys';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.N ?? 20_000);

const JSON_CAS = `
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local record = cjson.decode(raw)
if record.status ~= ARGV[1] or tostring(record.attempt) ~= ARGV[2] then return false end
local update = cjson.decode(ARGV[3])
for k, v in pairs(update) do record[k] = v end
local encoded = cjson.encode(record)
redis.call('SET', KEYS[1], encoded)
return encoded
`;

const HASH_CAS = `
local cur = redis.call('HMGET', KEYS[1], 's', 'a', 'r')
if not cur[1] or cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then return false end
redis.call('HSET', KEYS[1], 's', ARGV[4], 'a', ARGV[5], 'u', ARGV[3])
return cur[3]
`;

function record(index: number) {
  return {
    id: `0190a1b2-c3d4-7e5f-8a9b-${index.toString(16).padStart(12, '0')}`,
    agencyId: `agency-${index % 50}`,
    eventId: `evt_${index}`,
    eventType: 'job_created',
    entityType: 'job',
    entityId: `job-${index}`,
    parentEntityId: null,
    createdById: 'agent-1',
    createdByRole: 'Agent',
    payload: {
      jobId: `job-${index}`,
      jobNumber: `J-${index}`,
      address: '1 Example Street, Springfield',
      total: 1234.5,
    },
    createdOn: 1_700_000_000_000,
    createdAt: 1_700_000_000_000,
    status: 'pending',
    attempt: 0,
    maxAttempts: 5,
    nextRetryAt: 1_700_000_000_000,
    lastAttemptAt: null,
    deliveredAt: null,
    lastResponseCode: null,
    lastErrorMessage: null,
    lastResponseExcerpt: null,
    nextAttemptTrigger: 'automatic',
  };
}

const update = JSON.stringify({
  status: 'success',
  attempt: 1,
  maxAttempts: 5,
  nextRetryAt: null,
  lastAttemptAt: 1_700_000_000_500,
  deliveredAt: 1_700_000_000_500,
  lastResponseCode: 200,
  lastErrorMessage: null,
  lastResponseExcerpt: '{"ok":true}',
});

async function timed(label: string, work: (index: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: N }, (_, index) => work(index)));
  const perSec = (N / (performance.now() - started)) * 1000;
  console.log(`${label.padEnd(28)} ${perSec.toFixed(0).padStart(8)} ops/s`);
  return perSec;
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const prefix = `whk-bench:${randomBytes(4).toString('hex')}:`;
  redis.defineCommand('jsonCas', { numberOfKeys: 1, lua: JSON_CAS });
  redis.defineCommand('hashCas', { numberOfKeys: 1, lua: HASH_CAS });
  const cas = redis as CasClient;
  try {
    for (let round = 1; round <= 2; round++) {
      console.log(round === 1 ? '-- warm-up round' : '-- measured round');
      await compareLayouts(redis, cas, `${prefix}${round}:`);
    }
    const [hashBytes, jsonBytes] = await Promise.all([
      redis.memory('USAGE', `${prefix}2:h:1`),
      redis.memory('USAGE', `${prefix}2:j:1`),
    ]);
    console.log(`memory per delivery: hash ${hashBytes} B, json ${jsonBytes} B`);
    const big = { n: Number.MAX_SAFE_INTEGER };
    await redis.set(`${prefix}precision`, JSON.stringify({ ...record(0), payload: big }));
    const roundTrip = await cas.jsonCas(`${prefix}precision`, 'pending', '0', update);
    console.log(`cjson round trip of ${big.n}: ${JSON.stringify(JSON.parse(roundTrip ?? '{}').payload)}`);
  } finally {
    await removeKeysUnder(redis, prefix);
    await redis.quit();
  }
}

type CasClient = Redis & Record<'jsonCas' | 'hashCas', (...args: string[]) => Promise<string | null>>;

async function compareLayouts(redis: Redis, cas: CasClient, prefix: string): Promise<void> {
  await timed('hash: insert (HSET)', (i) => {
    const r = record(i);
    return redis.hset(`${prefix}h:${i}`, 'r', JSON.stringify(r), 's', 'pending', 'a', '0', 'g', r.agencyId);
  });
  await timed('json: insert (SET)', (i) => redis.set(`${prefix}j:${i}`, JSON.stringify(record(i))));
  await timed('hash: get (HMGET + parse)', async (i) => {
    const [r, u] = await redis.hmget(`${prefix}h:${i}`, 'r', 'u');
    return { ...JSON.parse(r ?? '{}'), ...(u ? JSON.parse(u) : {}) };
  });
  await timed('json: get (GET + parse)', async (i) =>
    JSON.parse((await redis.get(`${prefix}j:${i}`)) ?? '{}'),
  );
  await timed('hash: CAS update (script)', async (i) => {
    const r = await cas.hashCas(`${prefix}h:${i}`, 'pending', '0', update, 'success', '1');
    return { ...JSON.parse(r ?? '{}'), ...JSON.parse(update) };
  });
  await timed('json: CAS update (cjson)', async (i) =>
    JSON.parse((await cas.jsonCas(`${prefix}j:${i}`, 'pending', '0', update)) ?? '{}'),
  );
}

await main();
