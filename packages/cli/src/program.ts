import { Command, CommanderError } from 'commander';
import type { CommandContext } from './command-context';
import { registerDeliveryCommand } from './commands/delivery';
import { registerHealthCommand } from './commands/health';
import { registerRecoverCommand } from './commands/recover';
import { registerRecoveriesCommand } from './commands/recoveries';
import { registerReplayCommand } from './commands/replay';
import { registerSchemaCommand } from './commands/schema';
import { registerSignCommand } from './commands/sign';
import { registerTestCommand } from './commands/test';
import { registerTriggerCommand } from './commands/trigger';
import { registerVerifyCommand } from './commands/verify';
import { EXIT_CODES, type ExitCode, exitCodeOf } from './exit-codes';
import { type CliIo, processIo, terminalSafeIo, writeJson } from './io';
import { CLI_VERSION } from './version';

const EXIT_CODE_HELP = `
Exit codes:
  0   done: accepted, valid, completed
  1   the answer is no: the signature does not verify, the receiver answered non-2xx,
      the test event was not accepted, the recovery was cancelled
  2   bad command line or input (unknown option, event type, --set path...)
  3   no HTTP answer: connection refused, DNS, TLS, timeout
  4   the management API refused the request (its error code is printed)
  70  a bug in svc-webhooks

Environment: SVC_WEBHOOKS_SECRET (--secret), SVC_WEBHOOKS_API (--api), SVC_WEBHOOKS_TOKEN (--token).`;

/**
 * Runs `svc-webhooks` with the given arguments (without `node` and the script path) and resolves with
 * the exit code; it never exits the process itself. Results go to `io.stdout` (with `--json`, one JSON
 * document), errors and progress to `io.stderr`. Control characters in what is written (a receiver's
 * answer, an API's message) arrive as visible escapes such as `\u001b`, never raw, except `\n` and `\t`.
 *
 * @param argv - the arguments, e.g. `['verify', 'body.json', '--header', 't=…', '--secret', '…']`
 * @param io - where to read and write; the process's streams by default
 * @returns one of {@link EXIT_CODES}
 * @example
 * ```ts
 * process.exitCode = await runCli(process.argv.slice(2));
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<ExitCode> {
  let exitCode: ExitCode = EXIT_CODES.ok;
  const json = argv.includes('--json');
  const context: CommandContext = {
    // Every write, commander's help and errors included, goes through the terminal filter.
    io: terminalSafeIo(io),
    rawIo: io,
    json: () => json,
    exit: (code) => {
      exitCode = code;
    },
    now: Date.now,
  };
  try {
    await buildProgram(context).parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportFailure(error, context);
  }
}

function buildProgram(context: CommandContext): Command {
  const program = new Command('svc-webhooks')
    .description(
      'Sign, verify and trigger signed webhook deliveries of @svc/webhooks, print the events’ JSON Schemas, and test, replay and recover through a host’s management API.',
    )
    .version(CLI_VERSION, '-V, --version', 'print the version')
    .option('--json', 'write one JSON document to stdout, for scripts')
    .helpCommand(false)
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_CODE_HELP)
    .exitOverride()
    .configureOutput({ writeOut: context.io.stdout, writeErr: context.io.stderr });
  for (const register of [
    registerSignCommand,
    registerVerifyCommand,
    registerTriggerCommand,
    registerSchemaCommand,
    registerTestCommand,
    registerReplayCommand,
    registerDeliveryCommand,
    registerHealthCommand,
    registerRecoverCommand,
    registerRecoveriesCommand,
  ]) {
    register(program, context);
  }
  // Subcommands inherit the settings that make every failure an exception this module maps to a code.
  for (const command of program.commands) {
    command
      .exitOverride()
      .configureOutput(program.configureOutput())
      .showHelpAfterError('(add --help for usage)');
  }
  return program;
}

/** Writes what went wrong and returns the exit code for it. */
function reportFailure(error: unknown, context: CommandContext): ExitCode {
  const code = exitCodeOf(error);
  // Commander has already written its own message (or the help text) to stderr.
  if (error instanceof CommanderError) {
    if (code !== EXIT_CODES.ok && context.json()) writeError(context, 'invalid_usage', error.message, code);
    return code;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (code === EXIT_CODES.internal) {
    context.io.stderr(
      `@svc/webhooks-cli: internal error, please report it: ${(error as Error)?.stack ?? message}\n`,
    );
  } else {
    context.io.stderr(`${message}\n`);
  }
  if (context.json()) {
    const errorCode = (error as { code?: unknown }).code;
    writeError(context, typeof errorCode === 'string' ? errorCode : 'internal_error', message, code);
  }
  return code;
}

function writeError(context: CommandContext, code: string, message: string, exitCode: ExitCode): void {
  writeJson(context.io, { error: { code, message, exitCode } });
}
