/**
 * A binary min-heap of items keyed by a number, whose items remember their own
 * position, so an item can be removed or re-keyed in O(log n) without searching
 * for it. The memory queue uses it for times that change on every claim, renew
 * and reschedule; a plain heap would need lazy deletion and would fill with
 * stale nodes. Keys live in an array beside the items, so a comparison is a
 * number comparison rather than a callback reading two objects.
 */

/** An item an {@link IndexedHeap} can hold: the heap writes its slot here (-1 when outside). */
export interface HeapSlot {
  heapIndex: number;
}

/** Min-heap: the item with the smallest key comes out first (ties in no particular order). */
export class IndexedHeap<T extends HeapSlot> {
  readonly #items: T[] = [];
  readonly #keys: number[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** The first item, or undefined when empty. */
  peek(): T | undefined {
    return this.#items[0];
  }

  /** The first item's key; +Infinity when empty. */
  peekKey(): number {
    return this.#items.length > 0 ? (this.#keys[0] as number) : Number.POSITIVE_INFINITY;
  }

  /** Adds an item that is in no heap. */
  push(item: T, key: number): void {
    const index = this.#items.length;
    this.#items.push(item);
    this.#keys.push(key);
    item.heapIndex = index;
    this.#siftUp(index);
  }

  /** Removes an item; a no-op when it is not in the heap. */
  remove(item: T): void {
    const index = item.heapIndex;
    if (this.#items[index] !== item) return;
    const last = this.#items.pop() as T;
    const lastKey = this.#keys.pop() as number;
    item.heapIndex = -1;
    if (last === item) return;
    this.#place(last, lastKey, index);
    this.#restore(index);
  }

  /** Gives a held item a new key; a no-op when it is not in the heap or the key is unchanged. */
  update(item: T, key: number): void {
    const index = item.heapIndex;
    if (this.#items[index] !== item || this.#keys[index] === key) return;
    this.#keys[index] = key;
    this.#restore(index);
  }

  #restore(index: number): void {
    if (!this.#siftUp(index)) this.#siftDown(index);
  }

  /** Moves the item at `start` up while its key is below its parent's; true when it moved. */
  #siftUp(start: number): boolean {
    const items = this.#items;
    const keys = this.#keys;
    const item = items[start] as T;
    const key = keys[start] as number;
    let index = start;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parentKey = keys[parentIndex] as number;
      if (!(key < parentKey)) break;
      this.#place(items[parentIndex] as T, parentKey, index);
      index = parentIndex;
    }
    if (index !== start) this.#place(item, key, index);
    return index !== start;
  }

  #siftDown(start: number): void {
    const items = this.#items;
    const keys = this.#keys;
    const item = items[start] as T;
    const key = keys[start] as number;
    const length = items.length;
    let index = start;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= length) break;
      let childKey = keys[child] as number;
      const right = child + 1;
      if (right < length && (keys[right] as number) < childKey) {
        child = right;
        childKey = keys[right] as number;
      }
      if (!(childKey < key)) break;
      this.#place(items[child] as T, childKey, index);
      index = child;
    }
    if (index !== start) this.#place(item, key, index);
  }

  #place(item: T, key: number, index: number): void {
    this.#items[index] = item;
    this.#keys[index] = key;
    item.heapIndex = index;
  }
}
