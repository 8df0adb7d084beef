import type { ExitCode } from './exit-codes';
import type { CliIo } from './io';

/** What every command gets: where to write, whether `--json` is on, and where to put its exit code. */
export interface CommandContext {
  /** Where to read and write; every write is made safe for a terminal (`terminalSafeIo`). */
  io: CliIo;
  /**
   * The caller's streams unfiltered, only for the CLI's own cursor control (the progress bar's `\r`).
   * Never write text from elsewhere (answers, API fields, messages) to it.
   */
  rawIo: CliIo;
  /** Whether the global `--json` option was given. */
  json(): boolean;
  /** Sets the exit code of this run (0 unless a command sets another). */
  exit(code: ExitCode): void;
  /** Epoch ms, for relative times and signatures. */
  now(): number;
}
