/** Options of a {@link CallBatcher}. */
export interface CallBatcherOptions<Input> {
  /** Most inputs in one batch; more wait for the next. */
  maxBatch: number;
  /** Inputs with the same key never share a batch (the later one waits for the next). */
  keyOf?: (input: Input) => string;
}

interface QueuedCall<Input, Output> {
  input: Input;
  resolve: (output: Output) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces calls made in the same turn of the event loop into one statement
 * (PostgreSQL) or one script (Redis).
 *
 * A worker with 64 attempts in flight records dozens of them within a few
 * milliseconds; sending each as its own statement costs a round trip (and on
 * PostgreSQL a commit) apiece, and on a small machine the database's
 * per-statement work, not the HTTP, becomes the ceiling. Calls are gathered until the event loop has
 * handled the I/O that is ready (`setImmediate`), so a lone call waits for no
 * timer and goes out at once.
 *
 * `run` receives the inputs in call order and returns one output per input.
 * When `keyOf` is given, a batch never holds two inputs with the same key (the
 * later one goes into the next batch), so a statement never touches one row
 * twice. If a batch of several fails, each input is retried on its own, so a bad
 * input fails only its own call.
 */
export class CallBatcher<Input, Output> {
  #queued: QueuedCall<Input, Output>[] = [];
  #scheduled = false;

  constructor(
    private readonly run: (inputs: Input[]) => Promise<Output[]>,
    private readonly options: CallBatcherOptions<Input>,
  ) {}

  /** Queues one input for the next batch; resolves with its output, or rejects with its own error. */
  call(input: Input): Promise<Output> {
    return new Promise<Output>((resolve, reject) => {
      this.#queued.push({ input, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    let rest = this.#queued;
    this.#queued = [];
    while (rest.length > 0) {
      const batch: QueuedCall<Input, Output>[] = [];
      const later: QueuedCall<Input, Output>[] = [];
      const keys = new Set<string>();
      for (const call of rest) {
        const key = this.options.keyOf?.(call.input);
        if (batch.length >= this.options.maxBatch || (key !== undefined && keys.has(key))) {
          later.push(call);
          continue;
        }
        if (key !== undefined) keys.add(key);
        batch.push(call);
      }
      void this.#runBatch(batch);
      rest = later;
    }
  }

  async #runBatch(batch: QueuedCall<Input, Output>[]): Promise<void> {
    let outputs: Output[];
    try {
      outputs = await this.run(batch.map((call) => call.input));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      for (const call of batch) void this.#runBatch([call]);
      return;
    }
    for (const [index, call] of batch.entries()) call.resolve(outputs[index] as Output);
  }
}
