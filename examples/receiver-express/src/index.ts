/**
 * The example Express receiver, importable by the demo and by tests.
 *
 * @packageDocumentation
 */
export type { DeliveryContext, DeliveryHandler, ReceiverAppOptions } from './receiver-app';
export { createReceiverApp } from './receiver-app';
