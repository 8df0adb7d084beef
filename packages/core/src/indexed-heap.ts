/**
 * A binary min-heap whose items remember their own position, so an item can be
 * removed or re-keyed in O(log n) without searching for it. The memory queue
 * uses it for due times that change on every claim, renew and reschedule; a
 * plain heap would need lazy deletion and would fill with stale nodes.
 */

/** An item an {@link IndexedHeap} can hold: the heap writes its slot here (-1 when outside). */
export interface HeapSlot {
  heapIndex: number;
}

/** Min-heap ordered by `before(a, b)` (true when `a` must come out first). */
export class IndexedHeap<T extends HeapSlot> {
  readonly #items: T[] = [];
  readonly #before: (a: T, b: T) => boolean;

  constructor(before: (a: T, b: T) => boolean) {
    this.#before = before;
  }

  get size(): number {
    return this.#items.length;
  }

  /** The first item, or undefined when empty. */
  peek(): T | undefined {
    return this.#items[0];
  }

  /** Adds an item that is in no heap. */
  push(item: T): void {
    item.heapIndex = this.#items.length;
    this.#items.push(item);
    this.#siftUp(item.heapIndex);
  }

  /** Removes an item; a no-op when it is not in the heap. */
  remove(item: T): void {
    const index = item.heapIndex;
    if (this.#items[index] !== item) return;
    const last = this.#items.pop() as T;
    item.heapIndex = -1;
    if (last === item) return;
    this.#place(last, index);
    this.#restore(index);
  }

  /** Restores the order after the item's key changed. */
  update(item: T): void {
    if (this.#items[item.heapIndex] === item) this.#restore(item.heapIndex);
  }

  #restore(index: number): void {
    if (!this.#siftUp(index)) this.#siftDown(index);
  }

  /** Moves the item at `index` up while it comes before its parent; true when it moved. */
  #siftUp(start: number): boolean {
    const item = this.#items[start] as T;
    let index = start;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = this.#items[parentIndex] as T;
      if (!this.#before(item, parent)) break;
      this.#place(parent, index);
      index = parentIndex;
    }
    this.#place(item, index);
    return index !== start;
  }

  #siftDown(start: number): void {
    const item = this.#items[start] as T;
    const length = this.#items.length;
    let index = start;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= length) break;
      const right = child + 1;
      if (right < length && this.#before(this.#items[right] as T, this.#items[child] as T)) child = right;
      const childItem = this.#items[child] as T;
      if (!this.#before(childItem, item)) break;
      this.#place(childItem, index);
      index = child;
    }
    this.#place(item, index);
  }

  #place(item: T, index: number): void {
    this.#items[index] = item;
    item.heapIndex = index;
  }
}
