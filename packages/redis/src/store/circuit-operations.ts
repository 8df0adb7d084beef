import type { CircuitRecord, CircuitState, WebhookStore } from '@svc/webhooks-core';
import type { RedisClient } from '../connection/connection';
import { unexpectedReply } from '../errors';
import { circuitKey, type RedisStoreKeyNames } from '../key-names';
import { circuitFields, decodeCircuit, ownCircuitState } from './store-codec';
import { saveCircuitScript } from './store-scripts';

type CircuitOperations = Pick<WebhookStore, 'getCircuit' | 'saveCircuit'>;

/**
 * The store's circuit breaker state: a HASH per agency (`cb:<agencyId>`), apart
 * from the configuration so that deleting one leaves the other. Every worker
 * process reads it here; the compare-and-set on `version` is one script, so of
 * concurrent writers with the same expected version exactly one wins.
 */
export function createCircuitOperations(client: RedisClient, keys: RedisStoreKeyNames): CircuitOperations {
  return {
    async getCircuit(agencyId: string): Promise<CircuitRecord | null> {
      return decodeCircuit(agencyId, await client.hgetall(circuitKey(keys.base, agencyId)));
    },

    async saveCircuit(
      agencyId: string,
      expectedVersion: number | null,
      state: CircuitState,
    ): Promise<CircuitRecord | null> {
      const own = ownCircuitState(state);
      const reply = await saveCircuitScript.run(
        client,
        [circuitKey(keys.base, agencyId)],
        [expectedVersion ?? '', ...circuitFields(own)],
      );
      if (reply === null) return null;
      if (typeof reply !== 'number') throw unexpectedReply('saveCircuit', reply);
      return { ...own, agencyId, version: reply };
    },
  };
}
