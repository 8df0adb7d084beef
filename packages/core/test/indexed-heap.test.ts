import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type HeapSlot, IndexedHeap } from '../src/indexed-heap';

interface Item extends HeapSlot {
  id: number;
  key: number;
}

type Operation =
  | { kind: 'push'; key: number }
  | { kind: 'remove'; pick: number }
  | { kind: 'rekey'; pick: number; key: number }
  | { kind: 'pop' };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('push' as const), key: fc.integer({ min: 0, max: 50 }) }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('rekey' as const), pick: fc.nat(), key: fc.integer({ min: 0, max: 50 }) }),
  fc.record({ kind: fc.constant('pop' as const) }),
);

/** Applies one operation to the heap and to a plain array model. */
function apply(heap: IndexedHeap<Item>, model: Item[], op: Operation, nextId: number): void {
  const target =
    model.length > 0 && op.kind !== 'push' && op.kind !== 'pop' ? model[op.pick % model.length] : undefined;
  if (op.kind === 'push') {
    const item = { id: nextId, key: op.key, heapIndex: -1 };
    heap.push(item);
    model.push(item);
  } else if (op.kind === 'remove' && target) {
    heap.remove(target);
    model.splice(model.indexOf(target), 1);
  } else if (op.kind === 'rekey' && target) {
    target.key = op.key;
    heap.update(target);
  } else if (op.kind === 'pop') {
    const first = heap.peek();
    const minimum = Math.min(...model.map((item) => item.key));
    expect(first?.key ?? Number.POSITIVE_INFINITY).toBe(minimum);
    if (first) {
      heap.remove(first);
      model.splice(model.indexOf(first), 1);
    }
  }
}

describe('IndexedHeap', () => {
  it('always yields a minimum-key item through push, remove, re-key and pop', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 200 }), (operations) => {
        const heap = new IndexedHeap<Item>((a, b) => a.key < b.key);
        const model: Item[] = [];
        for (const [index, op] of operations.entries()) apply(heap, model, op, index);
        expect(heap.size).toBe(model.length);
        const drained: number[] = [];
        for (let first = heap.peek(); first; first = heap.peek()) {
          drained.push(first.key);
          heap.remove(first);
          expect(first.heapIndex, 'a removed item is marked outside').toBe(-1);
        }
        expect(drained).toEqual(model.map((item) => item.key).sort((a, b) => a - b));
      }),
    );
  });

  it('ignores removing or updating an item it does not hold', () => {
    const heap = new IndexedHeap<Item>((a, b) => a.key < b.key);
    const held = { id: 1, key: 5, heapIndex: -1 };
    const stranger = { id: 2, key: 1, heapIndex: 0 };
    heap.push(held);
    heap.remove(stranger);
    heap.update(stranger);
    expect(heap.size).toBe(1);
    expect(heap.peek()).toBe(held);
  });
});
