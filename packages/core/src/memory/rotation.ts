/** An item a {@link Rotation} can hold: the rotation keeps its links here. */
export interface RotationSlot<T> {
  rotationPrev: T | null;
  rotationNext: T | null;
  inRotation: boolean;
}

/**
 * A first-in first-out ring of items with O(1) push at either end, take from
 * the front and removal from anywhere: the round robin of the memory queue,
 * where an agency served goes to the back and an agency emptied leaves from
 * wherever it stands. Links live on the items, so nothing is allocated per move.
 */
export class Rotation<T extends RotationSlot<T>> {
  #head: T | null = null;
  #tail: T | null = null;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds an item that is in no rotation at the back. */
  push(item: T): void {
    item.inRotation = true;
    item.rotationPrev = this.#tail;
    item.rotationNext = null;
    if (this.#tail) this.#tail.rotationNext = item;
    else this.#head = item;
    this.#tail = item;
    this.#size += 1;
  }

  /** Adds an item that is in no rotation at the front. */
  unshift(item: T): void {
    item.inRotation = true;
    item.rotationPrev = null;
    item.rotationNext = this.#head;
    if (this.#head) this.#head.rotationPrev = item;
    else this.#tail = item;
    this.#head = item;
    this.#size += 1;
  }

  /** Takes the front item out; undefined when empty. */
  shift(): T | undefined {
    const item = this.#head;
    if (!item) return undefined;
    this.remove(item);
    return item;
  }

  /** Takes the item out; a no-op when it is in no rotation. */
  remove(item: T): void {
    if (!item.inRotation) return;
    if (item.rotationPrev) item.rotationPrev.rotationNext = item.rotationNext;
    else this.#head = item.rotationNext;
    if (item.rotationNext) item.rotationNext.rotationPrev = item.rotationPrev;
    else this.#tail = item.rotationPrev;
    item.rotationPrev = null;
    item.rotationNext = null;
    item.inRotation = false;
    this.#size -= 1;
  }
}
