/**
 * `@svc/webhooks-core/adapter-kit`: small helpers that the store and queue
 * adapters share (`@svc/webhooks-pg`, `@svc/webhooks-redis`), for anyone
 * writing another one. The contracts themselves (`WebhookStore`,
 * `DeliveryQueue`) are in the main entry; the conformance suites that hold an
 * adapter to them are in `@svc/webhooks-core/testing`.
 *
 * @packageDocumentation
 * @module @svc/webhooks-core/adapter-kit
 */

export { CallBatcher, type CallBatcherOptions } from './adapters/call-batcher';
export { assertNoTransaction } from './adapters/store';
export { setNewest } from './bounded-map';
export { redactSecrets } from './config/secret-redaction';
export { signingKeysJson } from './config/signing-keys';
export { type DeadlineResult, sleep, withinDeadline } from './deadline';
export { cursorEventType } from './delivery/recovery';
export { replayUpdate } from './delivery/state-machine';
