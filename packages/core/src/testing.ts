/**
 * `@svc/webhooks-core/testing`: the conformance suites every store and queue
 * adapter runs (vitest), and the test data builders they use.
 *
 * @example
 * ```ts
 * import { describeQueueConformance, describeStoreConformance } from '@svc/webhooks-core/testing';
 * import { createMemoryQueue, createMemoryStore } from '@svc/webhooks-core';
 *
 * describeStoreConformance('memory', () => ({ store: createMemoryStore() }));
 * describeQueueConformance('memory', () => ({ queue: createMemoryQueue() }));
 * ```
 *
 * @packageDocumentation
 * @module @svc/webhooks-core/testing
 */
export { makeDeliveryId, makeDeliveryRecord, makeRecoveryRecord } from './testing/delivery-record-builder';
export type { QueueConformanceOptions, QueueFactoryResult } from './testing/queue-conformance';
export { describeQueueConformance } from './testing/queue-conformance';
export type { StoreFactoryResult } from './testing/store-conformance';
export { describeStoreConformance } from './testing/store-conformance';
