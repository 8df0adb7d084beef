import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { createPinnedPools, pinnedLookup } from '../src/transport/pinned-pools';
import type { CheckedUrl, ResolvedAddress } from '../src/transport/url-policy';

type Answer = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function ask(lookup: ReturnType<typeof pinnedLookup>, options: Parameters<typeof lookup>[1]): Answer {
  let answer: Answer | undefined;
  lookup('ignored.example', options, (error, address, family) => {
    answer = { error, address, family };
  });
  if (!answer) throw new Error('the lookup did not answer synchronously');
  return answer;
}

describe('pinnedLookup(addresses)', () => {
  const lookup = pinnedLookup([
    { address: '2606:4700::1111', family: 6 },
    { address: '93.184.216.34', family: 4 },
  ]);

  it('answers every checked address, in order, when all are asked for', () => {
    expect(ask(lookup, { all: true }).address).toEqual([
      { address: '2606:4700::1111', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ]);
  });

  it('answers the first checked address otherwise, whatever name is asked', () => {
    expect(ask(lookup, {})).toMatchObject({ error: null, address: '2606:4700::1111', family: 6 });
  });

  it('honours a family restriction', () => {
    expect(ask(lookup, { family: 4 })).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(ask(lookup, { family: 'IPv6', all: true }).address).toEqual([
      { address: '2606:4700::1111', family: 6 },
    ]);
  });

  it('fails with ENOTFOUND when no checked address has the family', () => {
    const v4Only = pinnedLookup([{ address: '93.184.216.34', family: 4 }]);
    expect(ask(v4Only, { family: 6 }).error?.code).toBe('ENOTFOUND');
  });
});

describe('createPinnedPools(): one pool per origin and checked address set', () => {
  const checked = (url: string, addresses: string[]): CheckedUrl => {
    const parsed = new URL(url);
    return {
      url: parsed,
      hostname: parsed.hostname,
      addresses: addresses.map(
        (address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }),
      ),
    };
  };
  const poolsFor = () =>
    createPinnedPools({
      connections: 1,
      timeoutMs: 1000,
      localWaitMs: 5000,
      connectTimeoutMs: 1000,
      idleMs: 60_000,
      maxPools: 16,
      maxSockets: 16,
    });

  it('reuses the pool for a new check result with the same set, even reordered (round-robin DNS)', async () => {
    const pools = poolsFor();
    const first = pools.acquire(checked('https://hooks.example/a', ['93.184.216.34', '93.184.216.35']));
    const again = pools.acquire(checked('https://hooks.example/b', ['93.184.216.35', '93.184.216.34']));
    expect(again.pool).toBe(first.pool);
    expect(pools.size).toBe(1);
    await pools.close();
  });

  it('a changed set opens a new pool and retires the old one', async () => {
    const pools = poolsFor();
    const before = pools.acquire(checked('https://hooks.example/', ['93.184.216.34']));
    pools.release(before);
    const after = pools.acquire(checked('https://hooks.example/', ['93.184.216.34', '2606:4700::1111']));
    expect(after.pool).not.toBe(before.pool);
    expect(before.pool.closed).toBe(true);
    expect(pools.size).toBe(1);
    await pools.close();
  });

  it('another origin (a port, a name) gets a pool of its own', async () => {
    const pools = poolsFor();
    const a = pools.acquire(checked('https://hooks.example/', ['93.184.216.34']));
    const b = pools.acquire(checked('https://hooks.example:8443/', ['93.184.216.34']));
    const c = pools.acquire(checked('https://other.example/', ['93.184.216.34']));
    expect(new Set([a.pool, b.pool, c.pool]).size).toBe(3);
    await pools.close();
  });
});
