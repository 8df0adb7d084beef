import type { Redis } from 'ioredis';

/** One line of `INFO commandstats`. */
export interface CommandStats {
  calls: number;
  /** Microseconds the server spent executing them (a script's time includes the commands it ran). */
  usec: number;
}

/** `INFO commandstats` as a map from command name (`evalsha`, `config|resetstat`, …) to its counters. */
export async function readCommandStats(redis: Redis): Promise<Map<string, CommandStats>> {
  const info = await redis.info('commandstats');
  const stats = new Map<string, CommandStats>();
  for (const line of info.split('\n')) {
    const match = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
    if (match) stats.set(match[1]!, { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return stats;
}

/**
 * Counts the commands `redis` sends, by lower-case name, pipelines and
 * transactions included (ioredis sends each of their commands through the
 * client's `sendCommand`). `INFO commandstats` cannot tell these from the
 * commands scripts run on the server (it counts both under one name), so this
 * count is what says which calls crossed the network.
 */
export function countSentCommands(redis: Redis): Map<string, number> {
  const counts = new Map<string, number>();
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command, ...rest) => {
    const name = command.name.toLowerCase();
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return send(command, ...rest);
  }) as Redis['sendCommand'];
  return counts;
}
