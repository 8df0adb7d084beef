import { describe, expect, it } from 'vitest';
import {
  answerTtlMs,
  createDnsCache,
  type HostVerdict,
  isFresh,
  lookupFailureTtlMs,
  refusalTtlMs,
} from '../src/transport/dns-cache';
import type { ResolvedAddress } from '../src/transport/dns-resolver';
import { createSharedLookups } from '../src/transport/shared-lookups';

const at = (...ttls: Array<number | undefined>): ResolvedAddress[] =>
  ttls.map((ttl, index) => ({ address: `93.184.216.${index + 1}`, family: 4, ttl }));

describe('answerTtlMs: how long a checked answer is reused', () => {
  const cases: Array<[string, ResolvedAddress[], number | null]> = [
    ['one record, TTL 60 s', at(60), 60_000],
    ['the smallest TTL of the set wins', at(300, 20, 3600), 20_000],
    ['TTL 0 is clamped up to 1 s', at(0), 1000],
    ['a fraction of a second is clamped up to 1 s', at(0.2), 1000],
    ['exactly 1 s', at(1), 1000],
    ['exactly 5 min', at(300), 300_000],
    ['a day is clamped down to 5 min', at(86_400), 300_000],
    ['the 32-bit maximum is clamped down to 5 min', at(2 ** 31 - 1), 300_000],
    ['an address without TTL: not cached', at(60, undefined), null],
    ['no TTL at all (a custom resolver): not cached', at(undefined), null],
    ['a negative TTL: not cached', at(-1), null],
    ['a NaN TTL: not cached', at(Number.NaN), null],
    ['no answers: not cached', [], null],
  ];
  it.each(cases)('%s', (_name, answers, expected) => {
    expect(answerTtlMs(answers)).toBe(expected);
  });
});

describe('lookupFailureTtlMs: how long a failed lookup is reused', () => {
  const cases: Array<[string | undefined, number]> = [
    ['ENOTFOUND', 30_000],
    ['ENODATA', 30_000],
    ['EAI_NONAME', 30_000],
    ['ETIMEOUT', 5000],
    ['ESERVFAIL', 5000],
    ['ECONNREFUSED', 5000],
    ['EREFUSED', 5000],
    ['ECANCELLED', 5000],
    [undefined, 5000],
  ];
  it.each(cases)('%s → %i ms', (code, expected) => {
    expect(lookupFailureTtlMs(code)).toBe(expected);
  });
});

describe('refusalTtlMs: how long a refused (private) answer is reused', () => {
  const cases: Array<[string, ResolvedAddress[], number | null]> = [
    ['TTL 10 s', at(10), 10_000],
    ['TTL 0 is clamped up to 1 s', at(0), 1000],
    ['a long TTL is clamped down to 30 s', at(3600), 30_000],
    ['no TTL: not cached', at(undefined), null],
  ];
  it.each(cases)('%s', (_name, answers, expected) => {
    expect(refusalTtlMs(answers)).toBe(expected);
  });
});

describe('isFresh(expiresAt, now)', () => {
  const cases: Array<[number | null, number, boolean]> = [
    [1000, 999, true],
    [1000, 1000, false],
    [1000, 1001, false],
    [null, 0, false],
    [Number.POSITIVE_INFINITY, 1e15, true],
  ];
  it.each(cases)('expiresAt %s at %i → %s', (expiresAt, now, expected) => {
    expect(isFresh(expiresAt, now)).toBe(expected);
  });
});

describe('createDnsCache', () => {
  const ok: HostVerdict = { ok: true, addresses: [{ address: '93.184.216.34', family: 4 }] };

  it('answers a verdict until it expires, then forgets it', () => {
    const cache = createDnsCache(10);
    cache.set('hooks.example', ok, 60_000, 1000);
    expect(cache.get('hooks.example', 1000)?.verdict).toBe(ok);
    expect(cache.get('hooks.example', 60_999)?.expiresAt).toBe(61_000);
    expect(cache.get('hooks.example', 61_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps nothing when the TTL is null, but still hands the verdict back', () => {
    const cache = createDnsCache(10);
    expect(cache.set('hooks.example', ok, null, 0)).toEqual({ verdict: ok, expiresAt: null });
    expect(cache.get('hooks.example', 0)).toBeUndefined();
  });

  it('drops the entry stored longest ago past its capacity', () => {
    const cache = createDnsCache(2);
    cache.set('a.example', ok, 1000, 0);
    cache.set('b.example', ok, 1000, 0);
    cache.set('c.example', ok, 1000, 0);
    expect(cache.get('a.example', 1)).toBeUndefined();
    expect(cache.get('b.example', 1)).toBeDefined();
    expect(cache.size).toBe(2);
  });
});

describe('createSharedLookups', () => {
  function deferred<T>() {
    let resolve: (value: T) => void = () => {};
    const promise = new Promise<T>((done) => {
      resolve = done;
    });
    return { promise, resolve };
  }

  it('concurrent lookups of one key share one start', async () => {
    const lookups = createSharedLookups<string>(4);
    const answer = deferred<string>();
    let starts = 0;
    const start = () => {
      starts += 1;
      return answer.promise;
    };
    const joined = Array.from({ length: 50 }, (_, i) => lookups.join('hooks.example', `agency-${i}`, start));
    answer.resolve('done');
    expect(await Promise.all(joined)).toEqual(Array(50).fill('done'));
    expect(starts).toBe(1);
    expect(lookups.size).toBe(0);
  });

  it('starts a new lookup once the previous one of the key has settled', async () => {
    const lookups = createSharedLookups<number>(4);
    let starts = 0;
    const start = async () => ++starts;
    expect(await lookups.join('k', 'a', start)).toBe(1);
    expect(await lookups.join('k', 'a', start)).toBe(2);
  });

  it('counts only the lookups an agency starts, and refuses past its limit without starting', async () => {
    const lookups = createSharedLookups<string>(2);
    const slow = deferred<string>();
    const start = () => slow.promise;
    const first = lookups.join('one.example', 'a', start);
    const second = lookups.join('two.example', 'a', start);
    expect(lookups.join('one.example', 'a', start)).toBe(first); // joining costs nothing
    let startedThird = false;
    const third = lookups.join('three.example', 'a', () => {
      startedThird = true;
      return slow.promise;
    });
    expect(third).toBeUndefined();
    expect(startedThird).toBe(false);
    expect(lookups.inFlightOf('a')).toBe(2);
    // Another agency, and a check without an agency, are not held back by agency a.
    expect(lookups.join('three.example', 'b', start)).toBeDefined();
    expect(lookups.join('four.example', undefined, start)).toBeDefined();
    slow.resolve('done');
    await Promise.all([first, second]);
    expect(lookups.inFlightOf('a')).toBe(0);
    expect(lookups.join('three.example', 'a', async () => 'again')).toBeDefined();
  });

  it('a start that throws rejects the joined lookup and frees the slot', async () => {
    const lookups = createSharedLookups<string>(1);
    const failing = lookups.join('k', 'a', () => {
      throw new Error('resolver bug');
    });
    await expect(failing).rejects.toThrow('resolver bug');
    expect(lookups.inFlightOf('a')).toBe(0);
    expect(lookups.size).toBe(0);
  });
});
