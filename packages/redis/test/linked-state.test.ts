import { describe, expect, it } from 'vitest';
import { ClaimSnapshots } from '../src/linked/claim-snapshots';
import { QueueHandOff } from '../src/linked/queue-hand-off';
import { RecentClaim } from '../src/queue/recent-claim';

describe('QueueHandOff: what the linked store already did to an entry', () => {
  it.each([
    ['the same enqueue', { kind: 'enqueued', agencyId: 'a', runAt: 5 }, ['enqueued', 'a', 5], true],
    ['another runAt', { kind: 'enqueued', agencyId: 'a', runAt: 5 }, ['enqueued', 'a', 6], false],
    ['another agency', { kind: 'enqueued', agencyId: 'a', runAt: 5 }, ['enqueued', 'b', 5], false],
    ['a removal, for an ack', { kind: 'removed' }, ['removed'], true],
    ['a removal, for an enqueue', { kind: 'removed' }, ['enqueued', 'a', 5], false],
    ['an enqueue, for an ack', { kind: 'enqueued', agencyId: 'a', runAt: 5 }, ['removed'], false],
  ] as const)('%s', (_, note, [kind, agencyId, runAt], expected) => {
    const handOff = new QueueHandOff();
    handOff.note('d1', note);
    const take = () =>
      kind === 'removed' ? handOff.takeRemoved('d1') : handOff.takeEnqueued('d1', agencyId!, runAt!);
    expect(take()).toBe(expected);
    expect(take(), 'a note serves once').toBe(false);
  });

  it('drops the oldest notes beyond its capacity', () => {
    const handOff = new QueueHandOff(2);
    for (const id of ['d1', 'd2', 'd3']) handOff.note(id, { kind: 'removed' });
    expect([handOff.takeRemoved('d1'), handOff.takeRemoved('d2'), handOff.takeRemoved('d3')]).toEqual([
      false,
      true,
      true,
    ]);
  });
});

describe('ClaimSnapshots: the reads a linked claim took along', () => {
  it('serves each record once, and a configuration once per claimed delivery of its agency', () => {
    const snapshots = new ClaimSnapshots();
    const config = ['id', 'cfg-1'];
    snapshots.keep(
      ['d1', 'd2', 'd3'],
      ['a', 'a', 'b'],
      ['r1', '', 'r2', 'u2', '', ''],
      ['a', config, 'b', []],
    );
    expect(snapshots.takeRecord('d1')).toEqual({ inserted: 'r1', update: null });
    expect(snapshots.takeRecord('d1'), 'second read').toBeUndefined();
    expect(snapshots.takeRecord('d2')).toEqual({ inserted: 'r2', update: 'u2' });
    expect(snapshots.takeRecord('d3'), 'no record in Redis: read it for real').toBeUndefined();
    expect([snapshots.takeConfig('a'), snapshots.takeConfig('a'), snapshots.takeConfig('a')]).toEqual([
      config,
      config,
      undefined,
    ]);
    expect(snapshots.takeConfig('b'), 'no configuration in Redis: read it for real').toBeUndefined();
  });
});

describe('RecentClaim: which claim right after a short one is surely empty', () => {
  const sighting = {
    at: performance.now(),
    now: 1_000,
    nextDue: 2_000,
    short: true,
    excluded: new Set(['x']),
    seq: 7,
  };

  it.each([
    ['right after, same exclusions', {}, 1_000, ['x'], 7, true],
    ['more exclusions', {}, 1_500, ['x', 'y'], 7, true],
    ['an exclusion lifted', {}, 1_000, [], 7, false],
    ['the next due time reached', {}, 2_000, ['x'], 7, false],
    ['a full batch last time', { short: false }, 1_000, ['x'], 7, false],
    ['next due unknown', { nextDue: undefined }, 1_000, ['x'], 7, false],
    ['nothing scheduled', { nextDue: null }, 9_999, ['x'], 7, true],
    ['the clock went back', {}, 999, ['x'], 7, false],
    ['too late', { at: performance.now() - 1_000 }, 1_000, ['x'], 7, false],
    ['a wake-up since the last claim began, answered or not', {}, 1_000, ['x'], 8, false],
  ] as const)('%s', (_, change, now, excluded, seq, expected) => {
    const recent = new RecentClaim();
    recent.record({ ...sighting, at: performance.now(), ...change });
    expect(recent.surelyEmpty(now, excluded, seq)).toBe(expected);
  });

  it('answers locally at most once per real claim, and tells the wait when the next entry is due', () => {
    const recent = new RecentClaim();
    recent.record({ ...sighting, at: performance.now() });
    expect(recent.surelyEmpty(1_000, ['x'], 7)).toBe(true);
    expect(recent.surelyEmpty(1_000, ['x'], 7)).toBe(false);
    expect(recent.dueIn()).toBe(1_000);
    expect(recent.dueIn(), 'used up').toBeUndefined();
  });
});
