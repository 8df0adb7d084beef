import type { Redis } from 'ioredis';
import { isCluster, type RedisClient } from '../connection/connection';
import { configKey, type RedisStoreKeyNames } from '../key-names';
import { indexConfigsScript } from './store-scripts';

/** Keys SCAN looks at per call, and agencies indexed per script call. */
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
  let indexed = false;
  let running: Promise<void> | null = null;
  const ensure = async (): Promise<void> => {
    if ((await client.exists(keys.configsIndexed)) === 0) {
      await indexExisting(client, keys);
      await client.set(keys.configsIndexed, '1');
    }
    indexed = true;
  };
  return async () => {
    if (indexed) return;
    running ??= ensure().finally(() => {
      running = null;
    });
    await running;
  };
}

async function indexExisting(client: RedisClient, keys: RedisStoreKeyNames): Promise<void> {
  const prefix = configKey(keys.base, '');
  const pattern = `${escapeGlob(prefix)}*`;
  // Every store key shares one hash tag, so on a cluster they are all on one master; scanning each is simplest.
  const nodes: Redis[] = isCluster(client) ? client.nodes('master') : [client];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      cursor = next;
      const agencyIds = found.map((key) => key.slice(prefix.length));
      if (agencyIds.length > 0)
        await indexConfigsScript.run(client, [keys.configs], [keys.base, ...agencyIds]);
    } while (cursor !== '0');
  }
}

/** `text` as a SCAN pattern that matches only itself (a prefix may hold `*`, `?`, `[` or `\`). */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
