import type { z } from 'zod';
import {
  InvalidOptionError,
  type ValidationIssue,
  type WebhookErrorCode,
  WebhookValidationError,
} from './errors';

/** Flattens zod issues into `{ path: 'a.b.0', message }` pairs for error bodies. */
export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

/**
 * Parses `input` with `schema`, or throws a {@link WebhookValidationError} whose
 * message names the first problem and whose details list all of them.
 */
export function parseWithSchema<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
  code: WebhookErrorCode = 'validation_failed',
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error);
  const first = issues[0];
  const where = first && first.path !== '' ? ` at "${first.path}"` : '';
  throw new WebhookValidationError(
    `Invalid ${what}${where}: ${first?.message ?? 'invalid input'}`,
    issues,
    code,
  );
}

/**
 * The option's value, or `fallback` when it is not given; throws
 * {@link InvalidOptionError} (naming the option) unless the result is a positive integer.
 */
export function positiveIntegerOption(option: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < 1) {
    throw new InvalidOptionError(
      '@svc/webhooks-core',
      option,
      `${option} must be a positive integer; got ${String(value)}.`,
    );
  }
  return resolved;
}
