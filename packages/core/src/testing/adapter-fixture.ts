import { afterEach, beforeEach } from 'vitest';

/**
 * Calls `factory` before each test of the enclosing `describe` and the result's
 * `teardown` after it, and returns an accessor for the current result. Each test
 * therefore starts from an empty adapter and cannot see another test's data.
 */
export function useAdapterFixture<T extends { teardown?: () => Promise<void> }>(
  factory: () => Promise<T> | T,
): () => T {
  let current: T | undefined;
  beforeEach(async () => {
    current = await factory();
  });
  afterEach(async () => {
    const finished = current;
    current = undefined;
    await finished?.teardown?.();
  });
  return () => {
    if (current === undefined) throw new Error('The conformance adapter was used outside a running test.');
    return current;
  };
}
