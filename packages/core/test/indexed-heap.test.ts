import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type HeapSlot, IndexedHeap } from '../src/memory/indexed-heap';
import { Timeline, type TimelineSlot } from '../src/memory/timeline';

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
    heap.push(item, item.key);
    model.push(item);
  } else if (op.kind === 'remove' && target) {
    heap.remove(target);
    model.splice(model.indexOf(target), 1);
  } else if (op.kind === 'rekey' && target) {
    target.key = op.key;
    heap.update(target, op.key);
  } else if (op.kind === 'pop') {
    const first = heap.peek();
    const minimum = Math.min(...model.map((item) => item.key));
    expect(first?.key ?? Number.POSITIVE_INFINITY).toBe(minimum);
    expect(heap.peekKey(), 'peekKey agrees with peek').toBe(minimum);
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
        const heap = new IndexedHeap<Item>();
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
    const heap = new IndexedHeap<Item>();
    const held = { id: 1, key: 5, heapIndex: -1 };
    const stranger = { id: 2, key: 1, heapIndex: 0 };
    heap.push(held, held.key);
    heap.remove(stranger);
    heap.update(stranger, 0);
    expect(heap.size).toBe(1);
    expect(heap.peek()).toBe(held);
    expect(heap.peekKey()).toBe(5);
  });
});

interface Event extends TimelineSlot {
  id: number;
  time: number;
}

type TimelineOperation = { kind: 'add'; step: number } | { kind: 'remove'; pick: number } | { kind: 'pop' };

/** Mostly later times (as the queue sees them), sometimes earlier ones; long runs so holes pile up. */
const timelineOperation: fc.Arbitrary<TimelineOperation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('add' as const), step: fc.integer({ min: -8, max: 10 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pop' as const) }) },
);

function expectFirst(timeline: Timeline<Event>, model: Event[]): Event | undefined {
  const minimum = Math.min(...model.map((event) => event.time));
  const first = timeline.first();
  expect(first?.time ?? Number.POSITIVE_INFINITY, 'first() has the minimum time').toBe(minimum);
  expect(timeline.firstTime(), 'firstTime() agrees').toBe(minimum);
  expect(timeline.size).toBe(model.length);
  return first;
}

describe('Timeline', () => {
  it('always yields an earliest item, whether items arrive in order or not', () => {
    fc.assert(
      fc.property(fc.array(timelineOperation, { maxLength: 600 }), (operations) => {
        const timeline = new Timeline<Event>();
        const model: Event[] = [];
        let clock = 0;
        for (const [id, op] of operations.entries()) {
          if (op.kind === 'add') {
            clock += op.step;
            const event = { id, time: clock, heapIndex: -1, runIndex: -1 };
            timeline.add(event, event.time);
            model.push(event);
            continue;
          }
          const target = op.kind === 'pop' ? expectFirst(timeline, model) : model[op.pick % model.length];
          if (!target) continue;
          timeline.remove(target);
          model.splice(model.indexOf(target), 1);
          expect(target.runIndex === -1 && target.heapIndex === -1, 'a removed item is marked outside').toBe(
            true,
          );
        }
        const drained: number[] = [];
        for (let first = expectFirst(timeline, model); first; first = expectFirst(timeline, model)) {
          drained.push(first.time);
          timeline.remove(first);
          model.splice(model.indexOf(first), 1);
        }
        expect(drained).toEqual([...drained].sort((a, b) => a - b));
      }),
    );
  });

  it('keeps its order after removals from the middle squeeze the holes out', () => {
    const timeline = new Timeline<Event>();
    const events = Array.from({ length: 1_000 }, (_, id) => ({ id, time: id, heapIndex: -1, runIndex: -1 }));
    for (const event of events) timeline.add(event, event.time);
    // Every item but each tenth goes: far more holes than items, so the run is compacted.
    for (const event of events) if (event.id % 10 !== 0) timeline.remove(event);
    const late = { id: -1, time: 55, heapIndex: -1, runIndex: -1 };
    timeline.add(late, late.time);
    const drained: number[] = [];
    for (let first = timeline.first(); first; first = timeline.first()) {
      drained.push(first.time);
      timeline.remove(first);
    }
    expect(drained).toEqual(
      [...events.filter((event) => event.id % 10 === 0).map((e) => e.time), 55].sort((a, b) => a - b),
    );
  });

  it('ignores removing an item it does not hold', () => {
    const timeline = new Timeline<Event>();
    const other = new Timeline<Event>();
    const held = { id: 1, time: 5, heapIndex: -1, runIndex: -1 };
    const elsewhere = { id: 2, time: 1, heapIndex: -1, runIndex: -1 };
    timeline.add(held, held.time);
    other.add(elsewhere, elsewhere.time);
    timeline.remove(elsewhere);
    expect(timeline.size).toBe(1);
    expect(other.first()).toBe(elsewhere);
  });
});
