/**
 * Runs tasks one at a time, in the order they were handed in. The timed part
 * of every measurement and every audit with its clean-up go through one gate, so
 * an earlier measurement's store reads and closing connections never run while a
 * later one is being timed; waiting for hanging attempts to time out needs no gate.
 */
export interface Gate {
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createGate(): Gate {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run(task) {
      const result = tail.then(task);
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
