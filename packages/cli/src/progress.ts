import type { CliIo } from './io';

/** `[############------------] 12/24`: a bar `width` characters wide. */
export function renderProgressBar(done: number, total: number, width = 24): string {
  const ratio = total <= 0 ? 1 : Math.min(1, Math.max(0, done / total));
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`;
}

/** Shows how far a long piece of work got, on standard error. */
export interface ProgressReporter {
  update(done: number, total: number): void;
  /** Ends the display (a newline after a bar). */
  finish(): void;
}

/**
 * On a terminal, one bar redrawn in place; elsewhere (a log, CI) a line each time the count changes, so
 * the log stays readable; with `--json`, nothing, so standard output holds only the result.
 */
export function createProgressReporter(
  io: CliIo,
  options: { json: boolean; label: string },
): ProgressReporter {
  let last: string | null = null;
  let drawn = false;
  return {
    update(done, total) {
      if (options.json) return;
      const line = `${renderProgressBar(done, total)} ${options.label}`;
      if (line === last) return;
      last = line;
      if (io.stderrIsTTY) {
        io.stderr(`\r${line}`);
        drawn = true;
      } else {
        io.stderr(`${done}/${total} ${options.label}\n`);
      }
    },
    finish() {
      if (drawn) io.stderr('\n');
      drawn = false;
    },
  };
}
