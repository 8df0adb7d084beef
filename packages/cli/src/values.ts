import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidOptionError } from '@svc/webhooks-core';
import { PACKAGE_NAME } from './exit-codes';

/*
 * Parsers of option values. Each refuses a bad value with InvalidOptionError naming the option, which the
 * CLI reports with exit code 2 before any request is made.
 */

/** A non-negative integer (`--timestamp`, `--timeout`, `--interval`). */
export function parseCount(option: string, text: string): number {
  if (!/^\d{1,15}$/.test(text)) {
    throw new InvalidOptionError(
      PACKAGE_NAME,
      option,
      `--${option} takes a whole number; got ${JSON.stringify(text)}.`,
    );
  }
  return Number(text);
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

// Epoch milliseconds passed 1e11 in 1973; a smaller number of digits is epoch seconds, a common mix-up.
const SECONDS_LIMIT = 1e11;

/**
 * A point in time, in epoch ms: epoch milliseconds (`1767225600000`), an ISO 8601 date or date-time
 * (`2026-01-01`, `2026-01-01T08:00:00Z`), or a duration before `now` (`90m`, `24h`, `7d`).
 */
export function parseTime(option: string, text: string, now: number): number {
  const duration = /^(\d+)([smhdw])$/.exec(text);
  if (duration) return now - Number(duration[1]) * (UNIT_MS[duration[2] as string] as number);
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value < SECONDS_LIMIT) {
      throw new InvalidOptionError(
        PACKAGE_NAME,
        option,
        `--${option} ${text} looks like epoch seconds; give epoch milliseconds, an ISO date or a duration such as 24h.`,
      );
    }
    return value;
  }
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed) || !/^\d{4}-\d{2}-\d{2}/.test(text)) {
    throw new InvalidOptionError(
      PACKAGE_NAME,
      option,
      `--${option} takes epoch milliseconds, an ISO date (2026-01-01T08:00:00Z) or a duration before now (90m, 24h, 7d); got ${JSON.stringify(text)}.`,
    );
  }
  return parsed;
}

/** Collects a repeatable option's values (`--set a=1 --set b=2`). */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/** The PEM text of a `--ca` file. */
export function readCa(path: string | undefined, cwd: string): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(resolve(cwd, path), 'utf8');
  } catch (cause) {
    throw new InvalidOptionError(
      PACKAGE_NAME,
      'ca',
      `Cannot read the --ca file ${path}: ${(cause as Error).message}`,
    );
  }
}
