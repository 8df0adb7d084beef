import { describe, expect, it } from 'vitest';
import { CallBatcher } from '../src/adapters/call-batcher';

/** A batcher over `run` that records every batch it was handed. */
function recording(
  run: (inputs: number[]) => Promise<string[]>,
  options: { maxBatch: number; keyed?: boolean },
) {
  const batches: number[][] = [];
  const batcher = new CallBatcher<number, string>(
    async (inputs) => {
      batches.push(inputs);
      return run(inputs);
    },
    { maxBatch: options.maxBatch, keyOf: options.keyed ? (input) => String(input) : undefined },
  );
  return { batcher, batches };
}

const echo = async (inputs: number[]) => inputs.map((input) => `v${input}`);

describe('CallBatcher', () => {
  it('serves calls made in the same turn with one run, each caller getting its own output', async () => {
    const { batcher, batches } = recording(echo, { maxBatch: 10 });
    const results = await Promise.all([1, 2, 3].map((input) => batcher.call(input)));
    expect(results).toEqual(['v1', 'v2', 'v3']);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('sends a lone call on its own', async () => {
    const { batcher, batches } = recording(echo, { maxBatch: 10 });
    expect(await batcher.call(7)).toBe('v7');
    expect(await batcher.call(8)).toBe('v8');
    expect(batches).toEqual([[7], [8]]);
  });

  it('never puts more than maxBatch calls in one run', async () => {
    const { batcher, batches } = recording(echo, { maxBatch: 2 });
    await Promise.all([1, 2, 3, 4, 5].map((input) => batcher.call(input)));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('with keyOf, moves a second call with the same key into a later batch', async () => {
    const { batcher, batches } = recording(echo, { maxBatch: 10, keyed: true });
    await Promise.all([1, 2, 1, 3, 1].map((input) => batcher.call(input)));
    expect(batches).toEqual([[1, 2, 3], [1], [1]]);
  });

  it('when a batch fails, retries each call alone so only the bad one rejects', async () => {
    const { batcher, batches } = recording(
      async (inputs) => {
        if (inputs.includes(13)) throw new Error('unlucky');
        return inputs.map((input) => `v${input}`);
      },
      { maxBatch: 10 },
    );
    const results = await Promise.allSettled([12, 13, 14].map((input) => batcher.call(input)));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(batches).toEqual([[12, 13, 14], [12], [13], [14]]);
  });
});
