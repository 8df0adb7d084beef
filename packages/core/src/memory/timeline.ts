import { type HeapSlot, IndexedHeap } from './indexed-heap';

/**
 * Items ordered by a time, cheap when times mostly arrive in order. The memory
 * queue's times do: entries are enqueued at "now" and leases granted at
 * "now + leaseMs", so nearly every item joins at the end. Those items go to an
 * append-only run that needs no sifting; only an item earlier than the run's
 * last (an entry queued behind a retry due later, a recovery re-enqueue of an
 * old entry, a renew with a shorter lease) goes to a heap. Removing an item from the run leaves a hole, skipped when it
 * reaches the front and squeezed out once holes outnumber items.
 */

/** An item a {@link Timeline} can hold: it writes the item's run slot here (-1 when outside the run). */
export interface TimelineSlot extends HeapSlot {
  runIndex: number;
}

/** Below this many holes a compaction pass would cost more than the memory it frees. */
const MIN_HOLES_TO_COMPACT = 64;

/** Earliest time first; items with equal times come out in no particular order. */
export class Timeline<T extends TimelineSlot> {
  /** Items added in time order; a removed item leaves `undefined`. */
  readonly #run: (T | undefined)[] = [];
  /** Each run slot's time, holes included, so the run's last time is always at hand. */
  readonly #runTimes: number[] = [];
  /** Index of the run's first item (the run's length when it has none). */
  #head = 0;
  #runSize = 0;
  /** Items that arrived earlier than the run's last time. */
  readonly #late = new IndexedHeap<T>();

  get size(): number {
    return this.#runSize + this.#late.size;
  }

  /** The earliest item, or undefined when empty. */
  first(): T | undefined {
    if (this.#runSize === 0) return this.#late.peek();
    return (this.#runTimes[this.#head] as number) <= this.#late.peekKey()
      ? this.#run[this.#head]
      : this.#late.peek();
  }

  /** The earliest item's time; +Infinity when empty. */
  firstTime(): number {
    const late = this.#late.peekKey();
    if (this.#runSize === 0) return late;
    return Math.min(this.#runTimes[this.#head] as number, late);
  }

  /** Adds an item that is in no timeline and no heap. */
  add(item: T, time: number): void {
    const length = this.#run.length;
    if (length > 0 && time < (this.#runTimes[length - 1] as number)) {
      item.runIndex = -1;
      this.#late.push(item, time);
      return;
    }
    item.runIndex = length;
    item.heapIndex = -1;
    this.#run.push(item);
    this.#runTimes.push(time);
    this.#runSize++;
  }

  /** Removes an item; a no-op when it is not in this timeline. */
  remove(item: T): void {
    const index = item.runIndex;
    if (index < 0 || this.#run[index] !== item) {
      this.#late.remove(item);
      return;
    }
    this.#run[index] = undefined;
    item.runIndex = -1;
    if (--this.#runSize === 0) {
      // Emptied: start over rather than keep a run of holes.
      this.#run.length = 0;
      this.#runTimes.length = 0;
      this.#head = 0;
      return;
    }
    if (index === this.#head) {
      let head = index + 1;
      while (this.#run[head] === undefined) head++;
      this.#head = head;
    }
    const holes = this.#run.length - this.#runSize;
    if (holes >= MIN_HOLES_TO_COMPACT && holes > this.#runSize) this.#compact();
  }

  /** Squeezes the holes out of the run; linear, but only after as many removals. */
  #compact(): void {
    const run = this.#run;
    const times = this.#runTimes;
    let write = 0;
    for (let read = this.#head; read < run.length; read++) {
      const item = run[read];
      if (item === undefined) continue;
      run[write] = item;
      times[write] = times[read] as number;
      item.runIndex = write;
      write++;
    }
    run.length = write;
    times.length = write;
    this.#head = 0;
  }
}
