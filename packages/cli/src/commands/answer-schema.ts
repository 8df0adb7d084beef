import type { z } from 'zod';
import { ManagementApiError } from '../exit-codes';

/**
 * The answer's body read with core's schema of it, the one the router answers
 * from; an answer that does not fit is the host's, not the user's, so it is
 * reported as the management API's error.
 */
export function readAnswer<T extends z.ZodType>(schema: T, body: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new ManagementApiError(`${what} answered a body that is not the documented shape.`, {
      status: 200,
      code: null,
    });
  }
  return parsed.data;
}

/** An epoch-ms time as the CLI prints times: ISO 8601 in UTC, or "never". */
export function isoTime(epochMs: number | null): string {
  return epochMs === null ? 'never' : new Date(epochMs).toISOString();
}
