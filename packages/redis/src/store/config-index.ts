import type { Redis } from 'ioredis';
import { isCluster, type RedisClient } from '../connection/connection';
import { configKey, type RedisStoreKeyNames } from '../key-names';
import { indexConfigsScript } from './store-scripts';

/** Keys SCAN looks at per call, and ids indexed per script call. */
const SCAN_COUNT = 1_000;

/**
 * Returns a check that the `configs` index holds every configuration, run
 * before a `listConfigs` walk starts. Releases before `listConfigs` wrote
 * configuration hashes without indexing them: the first walk under a prefix
 * finds those with SCAN and indexes them, then sets `configsIndexed`, so later
 * walks (in any process) skip it. Every configuration write since indexes its
 * agency in its own script; configurations that an older release writes during
 * a rolling upgrade are indexed by their next write.
 */
export function createConfigIndexCheck(client: RedisClient, keys: RedisStoreKeyNames): () => Promise<void> {
  return createBackfillCheck(client, keys.configsIndexed, () =>
    scanIds(client, configKey(keys.base, ''), async (agencyIds) => {
      await indexConfigsScript.run(client, [keys.configs], [keys.base, ...agencyIds]);
    }),
  );
}

/**
 * Returns a check that runs `backfill` once per key prefix: unless `doneKey` exists,
 * it backfills, then sets `doneKey`, so later checks (in any process) skip it. Once
 * done, this process no longer asks; concurrent calls share one run.
 */
export function createBackfillCheck(
  client: RedisClient,
  doneKey: string,
  backfill: () => Promise<void>,
): () => Promise<void> {
  let done = false;
  let running: Promise<void> | null = null;
  const ensure = async (): Promise<void> => {
    if ((await client.exists(doneKey)) === 0) {
      await backfill();
      await client.set(doneKey, '1');
    }
    done = true;
  };
  return async () => {
    if (done) return;
    running ??= ensure().finally(() => {
      running = null;
    });
    await running;
  };
}

/** Finds every key named `prefix` + id with SCAN and hands the ids to `onIds`, one SCAN page at a time. */
export async function scanIds(
  client: RedisClient,
  prefix: string,
  onIds: (ids: string[]) => Promise<void>,
): Promise<void> {
  const pattern = `${escapeGlob(prefix)}*`;
  // Every store key shares one hash tag, so on a cluster they are all on one master; scanning each is simplest.
  const nodes: Redis[] = isCluster(client) ? client.nodes('master') : [client];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      cursor = next;
      const ids = found.map((key) => key.slice(prefix.length));
      if (ids.length > 0) await onIds(ids);
    } while (cursor !== '0');
  }
}

/** `text` as a SCAN pattern that matches only itself (a prefix may hold `*`, `?`, `[` or `\`). */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
