import { ChannelSubscription, subscriberName } from '../connection/channel-subscription';
import type { RedisClient } from '../connection/connection';
import type { RedisQueueKeyNames, RedisStoreKeyNames } from '../key-names';
import { ClaimSnapshots } from './claim-snapshots';
import { ConfigCache } from './config-cache';
import { QueueHandOff } from './queue-hand-off';

/**
 * What a linked store and queue (createRedisWebhooks) share in one process: each
 * other's key names, the notes the store leaves about queue entries its scripts
 * already changed, the snapshots the queue's claims read for the store, one
 * subscriber connection (wake-ups and configuration invalidations), and the
 * configuration cache it keeps coherent.
 */
export interface RedisLink {
  storeKeys: RedisStoreKeyNames;
  queueKeys: RedisQueueKeyNames;
  handOff: QueueHandOff;
  snapshots: ClaimSnapshots;
  subscription: ChannelSubscription;
  configs: ConfigCache;
}

export function createRedisLink(
  client: RedisClient,
  storeKeys: RedisStoreKeyNames,
  queueKeys: RedisQueueKeyNames,
): RedisLink {
  const subscription = new ChannelSubscription(client, subscriberName(storeKeys.base));
  const configs = new ConfigCache(() => subscription.live);
  subscription.on(storeKeys.configChannel, (agencyId) => configs.invalidate(agencyId));
  subscription.whenLost(() => configs.clear());
  return {
    storeKeys,
    queueKeys,
    handOff: new QueueHandOff(),
    snapshots: new ClaimSnapshots(),
    subscription,
    configs,
  };
}
