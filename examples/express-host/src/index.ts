/**
 * The example host application, importable by the demo and by tests.
 *
 * @packageDocumentation
 */
export type { BackendKind, HostBackend } from './backend';
export { backendKindFrom, openBackend } from './backend';
export { createDemoEmitRouter } from './demo-emit';
export type { EndpointDisabledNotifierOptions, OutgoingEmail, SendEmail } from './endpoint-disabled-email';
export { composeEndpointDisabledEmail, createEndpointDisabledNotifier } from './endpoint-disabled-email';
export type { HostApp, HostAppOptions } from './host-app';
export { createHostApp, PORTAL_PATH } from './host-app';
export type { StaticToken } from './static-tokens';
export { createStaticAuthenticate, DEFAULT_DEMO_TOKENS, parseStaticTokens } from './static-tokens';
