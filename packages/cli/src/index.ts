/**
 * `@svc/webhooks-cli`: the `svc-webhooks` command for developers of webhook receivers and of hosts
 * (`sign`, `verify`, `trigger`, `schema`, `test`, `replay`, `recover`, `recoveries`), and {@link runCli}
 * to run it from code.
 *
 * @packageDocumentation
 * @module @svc/webhooks-cli
 */
export type { ExitCode } from './exit-codes';
export { EXIT_CODES } from './exit-codes';
export type { CliIo } from './io';
export { runCli } from './program';
