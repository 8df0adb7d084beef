/** What a secret is replaced with. */
const REDACTED = '[redacted]';

/** How deep the walk goes: far enough for a driver error's cause of a cause's command arguments. */
const MAX_DEPTH = 8;

/**
 * Removes every occurrence of each of `secrets` from an error, in place, and
 * returns the same error, so its class, code and cause chain stay what the
 * driver made. Drivers attach what they sent: ioredis puts a failed command's
 * arguments on `command.args` (and the errors of a transaction or a cluster's
 * other nodes on `previousErrors` and `lastNodeError`); a PostgreSQL error's
 * `detail` can quote the failing row. A structured logger serialises all of it.
 *
 * The walk visits own properties (enumerable or not, so `message`, `stack` and
 * `cause` too) of errors, arrays and plain objects, to a bounded depth, and
 * rewrites each string that contains a secret. Other objects (a socket, a
 * client) are left alone. Empty and missing secrets are ignored.
 *
 * @param error - Anything thrown; a string is returned redacted.
 * @param secrets - The values to remove (a plaintext secret, its stored form).
 * @example
 * ```ts
 * try {
 *   await client.evalsha(sha, 1, key, signingSecret);
 * } catch (error) {
 *   throw redactSecrets(error, [signingSecret]);
 * }
 * ```
 */
export function redactSecrets<E>(error: E, secrets: ReadonlyArray<string | undefined>): E {
  const needles = secrets.filter((secret): secret is string => typeof secret === 'string' && secret !== '');
  if (needles.length === 0) return error;
  return scrub(error, needles, 0, new Set()) as E;
}

function scrub(value: unknown, secrets: readonly string[], depth: number, seen: Set<object>): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (!isWalkable(value) || depth > MAX_DEPTH || seen.has(value)) return value;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (!descriptor) continue;
    // An accessor (a lazily formatted `stack` on some engines) is read and, if it can be, set.
    const current =
      'value' in descriptor ? descriptor.value : descriptor.set ? Reflect.get(value, key) : undefined;
    const next = scrub(current, secrets, depth + 1, seen);
    if (next !== current) replace(value, key, descriptor, next);
  }
  return value;
}

function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  }
  return result;
}

function isWalkable(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  if (value instanceof Error || Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function replace(target: object, key: string | symbol, descriptor: PropertyDescriptor, next: unknown): void {
  if (descriptor.writable || descriptor.set) {
    if (Reflect.set(target, key, next)) return;
  }
  if (descriptor.configurable) {
    Object.defineProperty(target, key, {
      value: next,
      writable: true,
      enumerable: descriptor.enumerable ?? false,
      configurable: true,
    });
  }
}
