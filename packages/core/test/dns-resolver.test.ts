import { pbkdf2 } from 'node:crypto';
import { startDnsServer, type TestDnsServer } from '@svc/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../src/errors';
import { combinedFailure, createDnsResolver, MAX_LOOKUPS_IN_FLIGHT } from '../src/transport/dns-resolver';

let dns: TestDnsServer;

beforeAll(async () => {
  dns = await startDnsServer({
    zones: {
      'mixed.hooks.test': { a: ['93.184.216.34', '93.184.216.35'], aaaa: ['2606:4700::1111'], ttl: 42 },
      'v4.hooks.test': { a: ['93.184.216.34'], ttl: 60 },
      'v6.hooks.test': { aaaa: ['2606:4700::1111'], ttl: 90 },
      'empty.hooks.test': {},
      'broken.hooks.test': { rcode: 'SERVFAIL' },
      'dead.hooks.test': { silent: true },
      'slow.hooks.test': { a: ['93.184.216.34'], delayMs: 400 },
      'later.hooks.test': { a: ['93.184.216.34'], delayMs: 800 },
      // Its first query of each type is lost, as a datagram dropped by a full socket buffer.
      'lossy.hooks.test': (query) =>
        query.count === 1 ? { silent: true } : { a: ['93.184.216.34'], ttl: 60 },
      'half-dead.hooks.test': (query) =>
        query.type === 'AAAA' ? { silent: true } : { a: ['93.184.216.34'], ttl: 60 },
    },
  });
});

afterAll(async () => {
  await dns.close();
});

function resolverFor(timeoutMs = 2000) {
  return createDnsResolver({ servers: [dns.address], timeoutMs });
}

async function failureOf(promise: Promise<unknown>): Promise<NodeJS.ErrnoException> {
  return await promise.then(
    () => {
      throw new Error('expected the lookup to fail');
    },
    (error: NodeJS.ErrnoException) => error,
  );
}

describe('createDnsResolver against a real DNS server on the loopback', () => {
  it('queries A and AAAA and answers both, IPv4 first, each with its TTL', async () => {
    dns.resetCounts();
    expect(await resolverFor()('mixed.hooks.test')).toEqual([
      { address: '93.184.216.34', family: 4, ttl: 42 },
      { address: '93.184.216.35', family: 4, ttl: 42 },
      { address: '2606:4700::1111', family: 6, ttl: 42 },
    ]);
    expect(dns.queries('mixed.hooks.test', 'A')).toBe(1);
    expect(dns.queries('mixed.hooks.test', 'AAAA')).toBe(1);
  });

  it('an AAAA-only name answers its IPv6 addresses', async () => {
    expect(await resolverFor()('v6.hooks.test')).toEqual([
      { address: '2606:4700::1111', family: 6, ttl: 90 },
    ]);
  });

  it('an A-only name answers its IPv4 addresses', async () => {
    expect(await resolverFor()('v4.hooks.test')).toEqual([{ address: '93.184.216.34', family: 4, ttl: 60 }]);
  });

  it('queries both families in parallel: a 400 ms server costs one round trip, not two', async () => {
    const started = performance.now();
    await resolverFor()('slow.hooks.test');
    expect(performance.now() - started).toBeLessThan(750);
  });

  it('a name that does not exist fails with ENOTFOUND', async () => {
    expect((await failureOf(resolverFor()('missing.hooks.test'))).code).toBe('ENOTFOUND');
  });

  it('a name without A or AAAA records fails with ENODATA', async () => {
    expect((await failureOf(resolverFor()('empty.hooks.test'))).code).toBe('ENODATA');
  });

  it('a server failure is reported as such', async () => {
    expect((await failureOf(resolverFor()('broken.hooks.test'))).code).toBe('ESERVFAIL');
  });

  it('a name whose server never answers is cancelled at the timeout with ETIMEOUT, and no retry follows', async () => {
    dns.resetCounts();
    const started = performance.now();
    const error = await failureOf(resolverFor(400)('dead.hooks.test'));
    const elapsed = performance.now() - started;
    expect(error.code).toBe('ETIMEOUT');
    expect(error.message).toContain('400 ms');
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(1500);
    // c-ares alone would send its first retry about 2 s after the query; a cancelled lookup sends none.
    await new Promise((resolve) => setTimeout(resolve, 2500 - elapsed));
    expect(dns.queries('dead.hooks.test', 'A')).toBe(1);
    expect(dns.queries('dead.hooks.test', 'AAAA')).toBe(1);
  });

  it("a lookup that times out does not cancel another lookup's queries, and is cancelled once that one ends", async () => {
    dns.resetCounts();
    const resolve = resolverFor(1000);
    const started = performance.now();
    const dead = failureOf(resolve('dead.hooks.test'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Shares the channel; its answer comes about 300 ms after the dead lookup has given up.
    const later = resolve('later.hooks.test');
    expect((await dead).code).toBe('ETIMEOUT');
    expect(await later).toEqual([{ address: '93.184.216.34', family: 4, ttl: 300 }]);
    // The retries sent while the channel was still in use (1 s in) have landed by now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const askedWhileWaited = dns.queries('dead.hooks.test');
    // Nobody waits on the dead name's queries any more: c-ares's next retry (3 s in) never goes out.
    await new Promise((resolve) => setTimeout(resolve, 3300 - (performance.now() - started)));
    expect(dns.queries('dead.hooks.test')).toBe(askedWhileWaited);
  });

  it("a query lost on the way is asked again within the lookup's timeout, not after c-ares's default 2 s", async () => {
    dns.resetCounts();
    // With c-ares's own retry timer, the second query would go out after the lookup had given up.
    expect(await resolverFor(1500)('lossy.hooks.test')).toEqual([
      { address: '93.184.216.34', family: 4, ttl: 60 },
    ]);
    expect(dns.queries('lossy.hooks.test', 'A')).toBe(2);
  });

  it(`at most ${MAX_LOOKUPS_IN_FLIGHT} lookups query at once; the others wait their turn, and all resolve`, async () => {
    const arrivals: number[] = [];
    dns.set('*.turns.hooks.test', () => {
      arrivals.push(performance.now());
      return { a: ['93.184.216.34'], ttl: 60, delayMs: 300 };
    });
    const resolve = resolverFor(5000);
    const started = performance.now();
    const names = Array.from({ length: 150 }, (_, i) => `n${i}.turns.hooks.test`);
    const answers = await Promise.all(names.map((name) => resolve(name)));
    expect(answers.every((answer) => answer[0]?.address === '93.184.216.34')).toBe(true);
    // No lookup ends before its answers, 300 ms after its queries: until then only the first turn's went out.
    expect(arrivals.filter((at) => at - started < 300).length).toBeLessThanOrEqual(2 * MAX_LOOKUPS_IN_FLIGHT);
    expect(arrivals.length).toBeGreaterThanOrEqual(2 * names.length);
  });

  it('when AAAA never answers, the A answer is used after a short wait, not the whole timeout', async () => {
    const started = performance.now();
    expect(await resolverFor(5000)('half-dead.hooks.test')).toEqual([
      { address: '93.184.216.34', family: 4, ttl: 60 },
    ]);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('lookups of other names go on while one name hangs', async () => {
    const resolve = resolverFor(1500);
    let hangingSettled = false;
    const hanging = failureOf(resolve('dead.hooks.test')).finally(() => {
      hangingSettled = true;
    });
    await resolve('v4.hooks.test');
    expect(hangingSettled).toBe(false);
    expect((await hanging).code).toBe('ETIMEOUT');
  });

  it('lookups do not wait for the libuv thread pool (dns.lookup would)', async () => {
    // Four long key derivations take every thread of the default pool.
    let derived = 0;
    const jobs = Array.from(
      { length: 4 },
      () =>
        new Promise<void>((resolve) =>
          pbkdf2('secret', 'salt', 400_000, 64, 'sha512', () => {
            derived += 1;
            resolve();
          }),
        ),
    );
    await resolverFor()('v4.hooks.test');
    expect(derived).toBe(0);
    await Promise.all(jobs);
  });

  it('answers localhost names with the loopback addresses without a query (RFC 6761)', async () => {
    dns.resetCounts();
    const answer = await resolverFor()('api.localhost');
    expect(answer.map(({ address }) => address)).toEqual(['127.0.0.1', '::1']);
    expect(dns.queries()).toBe(0);
  });

  it('refuses dnsServers that are not addresses, or an empty list, as an invalid option', () => {
    expect(() => createDnsResolver({ servers: ['dns.example.com'], timeoutMs: 1000 })).toThrow(
      InvalidOptionError,
    );
    expect(() => createDnsResolver({ servers: [], timeoutMs: 1000 })).toThrow(/urlPolicy\.dnsServers/);
  });
});

describe('combinedFailure(a, aaaa)', () => {
  const error = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });
  const cases: Array<[string, string, string]> = [
    ['ENOTFOUND', 'ENOTFOUND', 'ENOTFOUND'],
    ['ENODATA', 'ENOTFOUND', 'ENOTFOUND'],
    ['ETIMEOUT', 'ENOTFOUND', 'ENOTFOUND'],
    ['ENODATA', 'ETIMEOUT', 'ETIMEOUT'],
    ['ETIMEOUT', 'ENODATA', 'ETIMEOUT'],
    ['ESERVFAIL', 'ETIMEOUT', 'ESERVFAIL'],
    ['ENODATA', 'ENODATA', 'ENODATA'],
  ];
  it.each(cases)('A %s and AAAA %s → %s', (a, aaaa, expected) => {
    expect(combinedFailure(error(a), error(aaaa)).code).toBe(expected);
  });
});
