import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidOptionError } from '@svc/webhooks-core';
import { PACKAGE_NAME } from './exit-codes';
import { toTerminalJson, toTerminalText } from './terminal-text';

/**
 * Where a run of the CLI reads and writes. The binary uses the process's streams; tests and hosts that
 * embed the CLI pass their own.
 */
export interface CliIo {
  /** Writes to standard output (results; with `--json`, exactly one JSON document). */
  stdout(text: string): void;
  /** Writes to standard error (errors, hints, progress). */
  stderr(text: string): void;
  /** Reads all of standard input as bytes. */
  readStdin(): Promise<Uint8Array>;
  /** Whether standard input is a terminal (then a body must come from a file or `--body`). */
  stdinIsTTY: boolean;
  /** Whether standard error is a terminal (then progress is drawn as a bar). */
  stderrIsTTY: boolean;
  /** Environment variables (`SVC_WEBHOOKS_SECRET`, …). */
  env: Record<string, string | undefined>;
  /** Directory relative paths are resolved against. */
  cwd: string;
}

/** The {@link CliIo} of this process. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    stdinIsTTY: process.stdin.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Where `sign` and `verify` take the body from. */
export interface BodySource {
  /** `--body <text>`. */
  body?: string;
  /** The `[file]` argument; `-` is standard input. */
  file?: string;
}

/**
 * The body exactly as given: `--body`, a file's bytes, or standard input. Bytes, not text, so that what is
 * signed or verified is what the file holds (a trailing newline included).
 */
export async function readBody(source: BodySource, io: CliIo): Promise<Uint8Array> {
  if (source.body !== undefined && source.file !== undefined) {
    throw new InvalidOptionError(
      PACKAGE_NAME,
      'body',
      'Give the body either with --body or as a file, not both.',
    );
  }
  if (source.body !== undefined) return new TextEncoder().encode(source.body);
  if (source.file !== undefined && source.file !== '-') {
    try {
      return await readFile(resolve(io.cwd, source.file));
    } catch (cause) {
      throw new InvalidOptionError(
        PACKAGE_NAME,
        'file',
        `Cannot read the body file ${source.file}: ${(cause as Error).message}`,
      );
    }
  }
  if (io.stdinIsTTY) {
    throw new InvalidOptionError(
      PACKAGE_NAME,
      'file',
      'No body: give a file, --body <text>, or pipe the body in (… | svc-webhooks sign --secret …).',
    );
  }
  return io.readStdin();
}

/**
 * The same streams, with every write made safe for a terminal by {@link toTerminalText}. `runCli` gives
 * commands only this one: the text they print holds a receiver's answer, an API's messages and fields,
 * and the control characters in those must reach the user's terminal as visible text, never as commands
 * to it. Filtering the one place output goes through covers every command and every error message,
 * including the ones written later.
 */
export function terminalSafeIo(io: CliIo): CliIo {
  return {
    stdout: (text) => io.stdout(toTerminalText(text)),
    stderr: (text) => io.stderr(toTerminalText(text)),
    readStdin: () => io.readStdin(),
    stdinIsTTY: io.stdinIsTTY,
    stderrIsTTY: io.stderrIsTTY,
    env: io.env,
    cwd: io.cwd,
  };
}

/**
 * Writes a value as one JSON document. Control characters in its strings are JSON escapes
 * ({@link toTerminalJson}), so the document stays valid, means the same, and passes
 * {@link terminalSafeIo} unchanged.
 */
export function writeJson(io: CliIo, value: unknown): void {
  io.stdout(`${toTerminalJson(value)}\n`);
}
