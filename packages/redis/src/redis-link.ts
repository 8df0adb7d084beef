import { ChannelSubscription } from './channel-subscription';
import { ClaimSnapshots } from './claim-snapshots';
import { ConfigCache } from './config-cache';
import type { RedisClient } from './connection';
import type { QueueKeyNames, StoreKeyNames } from './key-space';
import { QueueHandOff } from './queue-hand-off';

/**
 * What a linked store and queue (createRedisWebhooks) share in one process: each
 * other's key names, the notes the store leaves about queue entries its scripts
 * already changed, the snapshots the queue's claims read for the store, one
 * subscriber connection (wake-ups and configuration invalidations), and the
 * configuration cache it keeps coherent.
 */
export interface RedisLink {
  storeKeys: StoreKeyNames;
  queueKeys: QueueKeyNames;
  handOff: QueueHandOff;
  snapshots: ClaimSnapshots;
  subscription: ChannelSubscription;
  configs: ConfigCache;
}

export function createRedisLink(
  client: RedisClient,
  storeKeys: StoreKeyNames,
  queueKeys: QueueKeyNames,
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

/** CLIENT SETNAME of a subscriber: the key prefix (names cannot hold spaces) and a role. */
export function subscriberName(base: string): string {
  return `${base.replace(/[^\w:{}.-]/g, '_')}subscriber`;
}
