import { InvalidOptionError } from '@svc/webhooks-core';
import { PACKAGE_NAME } from './exit-codes';

/** One `--set path=value`, parsed. */
export interface Assignment {
  /** Dotted path into the envelope, e.g. `['metadata', 'jobNumber']`. */
  path: string[];
  value: unknown;
}

// Keys that would reach Object.prototype instead of the envelope.
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * Parses `metadata.jobNumber=7`. The value is JSON when it parses as JSON (`7`, `true`, `null`,
 * `"007"`, `{"a":1}`), and text otherwise (`Leaking tap`), so numbers and nulls need no quoting.
 */
export function parseAssignment(text: string): Assignment {
  const eq = text.indexOf('=');
  const path = eq <= 0 ? [] : text.slice(0, eq).split('.');
  if (path.length === 0 || path.some((key) => key === '' || FORBIDDEN_KEYS.has(key))) {
    throw new InvalidOptionError(
      PACKAGE_NAME,
      'set',
      `--set takes path=value with a dotted path into the envelope, such as metadata.jobNumber=7; got ${JSON.stringify(text)}.`,
    );
  }
  return { path, value: parseValue(text.slice(eq + 1)) };
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A copy of `envelope` with each assignment applied in order: an existing key keeps its place (the body
 * keeps the envelope's key order), a new one is added at the end of its object.
 */
export function applyAssignments(
  envelope: Record<string, unknown>,
  assignments: readonly Assignment[],
): Record<string, unknown> {
  const result = structuredClone(envelope);
  for (const { path, value } of assignments) {
    let target: Record<string, unknown> = result;
    for (const [index, key] of path.slice(0, -1).entries()) {
      const next = target[key];
      if (typeof next !== 'object' || next === null || Array.isArray(next)) {
        throw new InvalidOptionError(
          PACKAGE_NAME,
          'set',
          `--set ${path.join('.')}: ${path.slice(0, index + 1).join('.')} is not an object in the envelope.`,
        );
      }
      target = next as Record<string, unknown>;
    }
    target[path.at(-1) as string] = value;
  }
  return result;
}
