import { randomBytes } from 'node:crypto';
import type { ReceiverProcess } from '@svc/test-support';
import { Redis } from 'ioredis';
import { configureAgencies } from '../pg/svc-setup';
import { removeKeysUnder } from '../redis/redis-keys';
import { type PhaseMeter, type Regime, runRegime } from './delivery-regime';
import { ownCpuSeconds, serverCpuSeconds } from './process-cpu';
import { type CommandStats, countSentCommands, readCommandStats } from './redis-commands';
import { createRedisBenchService } from './redis-service';

/** Counters at one point of a run on the private Redis. */
export interface RedisSnapshot {
  /** `INFO commandstats`, without the benchmark's own INFO and CONFIG calls. */
  commands: Map<string, CommandStats>;
  /** Commands the service's connection sent, by name. */
  sent: Map<string, number>;
  /** CPU seconds of redis-server so far. */
  serverCpu: number;
  /** CPU seconds of this process (emits and the worker) so far. */
  processCpu: number;
}

/** One measured run: what `deliveries` deliveries cost the Redis server. */
export interface RedisCostRun {
  regime: Regime;
  deliveries: number;
  start: RedisSnapshot;
  emitted: RedisSnapshot | null;
  end: RedisSnapshot;
  wallSeconds: number;
}

/** The benchmark's own calls, left out of every reading. */
const OWN_COMMANDS = new Set(['info', 'config|resetstat']);

/**
 * Runs `agencies × perAgency` deliveries through `createRedisWebhooks`
 * (defaults, one connection, as one process that emits and delivers) on the
 * private Redis at `url`, after an untimed warm-up, with `CONFIG RESETSTAT` just
 * before the measured run. Counters are read over a second connection.
 */
export async function measureRedisCost(
  url: string,
  serverPid: number,
  receiver: ReceiverProcess,
  regime: Regime,
  agencyCount: number,
  perAgency: number,
): Promise<RedisCostRun> {
  const redis = new Redis(url);
  const admin = new Redis(url);
  const prefix = `capacity:${randomBytes(4).toString('hex')}:`;
  const { webhooks, adapters } = createRedisBenchService(redis, prefix, receiver.ca);
  try {
    const agencies = await configureAgencies(webhooks, agencyCount, receiver.url);
    const received = async () => (await receiver.stats()).received;
    await runRegime({
      webhooks,
      agencies,
      perAgency: 5,
      regime,
      received,
      meter: { snapshot: async () => null },
    });
    const sent = countSentCommands(redis);
    const meter: PhaseMeter<RedisSnapshot> = {
      async snapshot() {
        const commands = await readCommandStats(admin);
        for (const name of OWN_COMMANDS) commands.delete(name);
        return {
          commands,
          sent: new Map(sent),
          serverCpu: serverCpuSeconds(serverPid),
          processCpu: ownCpuSeconds(),
        };
      },
    };
    await admin.config('RESETSTAT');
    const run = await runRegime({ webhooks, agencies, perAgency, regime, received, meter });
    return { regime, deliveries: agencies.length * perAgency, ...run };
  } finally {
    await webhooks.close();
    await adapters.close();
    await removeKeysUnder(admin, prefix);
    await redis.quit();
    await admin.quit();
  }
}
