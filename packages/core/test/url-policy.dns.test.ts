import { startDnsServer, type TestDnsServer } from '@svc/test-support';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError, InvalidWebhookUrlError } from '../src/errors';
import { createMemoryQueue } from '../src/memory/memory-queue';
import { createMemoryStore } from '../src/memory/memory-store';
import { createWebhookService } from '../src/service/service';
import { createUrlPolicy, type HostResolver, type UrlPolicyOptions } from '../src/transport/url-policy';

/*
 * The URL policy with its built-in c-ares resolver, against a real DNS server
 * on the loopback. Every answer here is checked, never connected to.
 */

const PUBLIC = '93.184.216.34';
const PUBLIC_2 = '93.184.216.35';
const PUBLIC_V6 = '2606:4700::1111';

let dns: TestDnsServer;
let now = 0;

/** A policy on the loopback DNS server, with a clock the test moves. */
function policyOn(options: UrlPolicyOptions = {}) {
  return createUrlPolicy({ dnsServers: [dns.address], ...options }, { now: () => now });
}

async function refusal(promise: Promise<unknown>): Promise<InvalidWebhookUrlError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof InvalidWebhookUrlError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

/** A and AAAA queries of `name` so far. */
const queriesOf = (name: string) => dns.queries(name);

beforeAll(async () => {
  dns = await startDnsServer();
});

afterAll(async () => {
  await dns.close();
});

beforeEach(() => {
  now = 1_000_000;
  dns.delayMs = 0;
  dns.resetCounts();
});

describe('the built-in resolver, through dnsServers', () => {
  it('checks a hostname on the configured server and keeps every address, without TTLs', async () => {
    dns.set('mixed.hooks.test', { a: [PUBLIC, PUBLIC_2], aaaa: [PUBLIC_V6], ttl: 60 });
    const checked = await policyOn().check('https://mixed.hooks.test/in');
    expect(checked.addresses).toEqual([
      { address: PUBLIC, family: 4 },
      { address: PUBLIC_2, family: 4 },
      { address: PUBLIC_V6, family: 6 },
    ]);
  });

  it('accepts an AAAA-only name', async () => {
    dns.set('six.hooks.test', { aaaa: [PUBLIC_V6] });
    expect((await policyOn().check('https://six.hooks.test/')).addresses).toEqual([
      { address: PUBLIC_V6, family: 6 },
    ]);
  });

  it('refuses a mixed answer whose AAAA record is private, and names no address', async () => {
    dns.set('mixed-private.hooks.test', { a: [PUBLIC], aaaa: ['fd00::1'] });
    const error = await refusal(policyOn().check('https://mixed-private.hooks.test/'));
    expect(error.reason).toBe('private_address');
    expect(error.message).not.toContain('fd00');
  });

  it('a name that does not exist is unresolvable_host with the DNS error as cause', async () => {
    const error = await refusal(policyOn().check('https://missing.hooks.test/'));
    expect(error.reason).toBe('unresolvable_host');
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
  });

  it('a name that never answers is cancelled at lookupTimeoutMs: unresolvable_host saying so', async () => {
    dns.set('dead.hooks.test', { silent: true });
    const started = performance.now();
    const error = await refusal(policyOn({ lookupTimeoutMs: 300 }).check('https://dead.hooks.test/'));
    expect(error.reason).toBe('unresolvable_host');
    expect(error.message).toContain('did not resolve within 300 ms');
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('refuses invalid dnsServers and a maxLookupsPerAgency below 1 when the policy is made', () => {
    expect(() => createUrlPolicy({ dnsServers: ['not an address'] })).toThrow(InvalidOptionError);
    expect(() => createUrlPolicy({ maxLookupsPerAgency: 0 })).toThrow(/maxLookupsPerAgency/);
  });
});

describe('the cache of judged answers', () => {
  it('reuses a checked answer for its TTL without a query, then asks again', async () => {
    dns.set('ttl.hooks.test', { a: [PUBLIC], ttl: 60 });
    const policy = policyOn();
    await policy.check('https://ttl.hooks.test/a');
    expect(queriesOf('ttl.hooks.test')).toBe(2); // A and AAAA
    now += 59_999;
    await policy.check('https://ttl.hooks.test/a');
    await policy.check('https://ttl.hooks.test/other-path');
    expect(queriesOf('ttl.hooks.test')).toBe(2);
    now += 1;
    await policy.check('https://ttl.hooks.test/a');
    expect(queriesOf('ttl.hooks.test')).toBe(4);
  });

  it('uses the smallest TTL of the answer set', async () => {
    dns.set('smallest.hooks.test', (query) =>
      query.type === 'A' ? { a: [PUBLIC], ttl: 300 } : { aaaa: [PUBLIC_V6], ttl: 10 },
    );
    const policy = policyOn();
    await policy.check('https://smallest.hooks.test/');
    now += 10_000;
    await policy.check('https://smallest.hooks.test/');
    expect(queriesOf('smallest.hooks.test')).toBe(4);
  });

  it('clamps a TTL of 0 up to 1 s', async () => {
    dns.set('zero.hooks.test', { a: [PUBLIC], ttl: 0 });
    const policy = policyOn();
    await policy.check('https://zero.hooks.test/');
    now += 999;
    await policy.check('https://zero.hooks.test/');
    expect(queriesOf('zero.hooks.test')).toBe(2);
    now += 1;
    await policy.check('https://zero.hooks.test/');
    expect(queriesOf('zero.hooks.test')).toBe(4);
  });

  it('clamps a TTL of a day down to 5 minutes', async () => {
    dns.set('day.hooks.test', { a: [PUBLIC], ttl: 86_400 });
    const policy = policyOn();
    await policy.check('https://day.hooks.test/');
    now += 299_999;
    await policy.check('https://day.hooks.test/');
    expect(queriesOf('day.hooks.test')).toBe(2);
    now += 1;
    await policy.check('https://day.hooks.test/');
    expect(queriesOf('day.hooks.test')).toBe(4);
  });

  it('honours the TTL on the real clock by default', async () => {
    dns.set('real-clock.hooks.test', { a: [PUBLIC], ttl: 1 });
    const policy = createUrlPolicy({ dnsServers: [dns.address] });
    await policy.check('https://real-clock.hooks.test/');
    await policy.check('https://real-clock.hooks.test/');
    expect(queriesOf('real-clock.hooks.test')).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await policy.check('https://real-clock.hooks.test/');
    expect(queriesOf('real-clock.hooks.test')).toBe(4);
  });

  it('known(url) answers a fresh hostname check without I/O, and nothing once it expired', async () => {
    dns.set('known.hooks.test', { a: [PUBLIC], ttl: 30 });
    const policy = policyOn();
    expect(policy.known('https://known.hooks.test/in')).toBeUndefined();
    const checked = await policy.check('https://known.hooks.test/in');
    expect(policy.known('https://known.hooks.test/in')).toBe(checked);
    now += 30_000;
    expect(policy.known('https://known.hooks.test/in')).toBeUndefined();
  });

  it('concurrent checks of a cold name share one A and one AAAA query', async () => {
    dns.set('burst.hooks.test', { a: [PUBLIC], aaaa: [PUBLIC_V6], delayMs: 50 });
    const policy = policyOn();
    const checks = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        policy.check(`https://burst.hooks.test/${i}`, { agencyId: `a${i}` }),
      ),
    );
    expect(checks.every((checked) => checked.addresses.length === 2)).toBe(true);
    expect(dns.queries('burst.hooks.test', 'A')).toBe(1);
    expect(dns.queries('burst.hooks.test', 'AAAA')).toBe(1);
  });

  it('negative caching: a name that does not exist is not asked again for 30 s', async () => {
    const policy = policyOn();
    expect((await refusal(policy.check('https://nx.hooks.test/'))).reason).toBe('unresolvable_host');
    now += 29_999;
    const cached = await refusal(policy.check('https://nx.hooks.test/'));
    expect(cached.reason).toBe('unresolvable_host');
    expect((cached.cause as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
    expect(queriesOf('nx.hooks.test')).toBe(2);
    now += 1;
    await refusal(policy.check('https://nx.hooks.test/'));
    expect(queriesOf('nx.hooks.test')).toBe(4);
  });

  it('negative caching: a name without records is not asked again for 30 s either', async () => {
    dns.set('nodata.hooks.test', {});
    const policy = policyOn();
    await refusal(policy.check('https://nodata.hooks.test/'));
    now += 29_999;
    await refusal(policy.check('https://nodata.hooks.test/'));
    expect(queriesOf('nodata.hooks.test')).toBe(2);
  });

  it('negative caching: a timeout or a server failure is kept 5 s only', async () => {
    dns.set('flaky.hooks.test', { rcode: 'SERVFAIL' });
    const policy = policyOn();
    await refusal(policy.check('https://flaky.hooks.test/'));
    now += 4999;
    await refusal(policy.check('https://flaky.hooks.test/'));
    expect(queriesOf('flaky.hooks.test')).toBe(2);
    dns.set('flaky.hooks.test', { a: [PUBLIC] });
    now += 1;
    expect((await policy.check('https://flaky.hooks.test/')).addresses).toEqual([
      { address: PUBLIC, family: 4 },
    ]);
  });

  it('a refused (private) answer is kept for its TTL, at most 30 s', async () => {
    dns.set('inside.hooks.test', { a: ['10.0.0.7'], ttl: 3600 });
    const policy = policyOn();
    await refusal(policy.check('https://inside.hooks.test/'));
    now += 29_999;
    expect((await refusal(policy.check('https://inside.hooks.test/'))).reason).toBe('private_address');
    expect(queriesOf('inside.hooks.test')).toBe(2);
    now += 1;
    await refusal(policy.check('https://inside.hooks.test/'));
    expect(queriesOf('inside.hooks.test')).toBe(4);
  });

  it('with allowPrivateNetworks, private answers are cached like public ones', async () => {
    dns.set('lan.hooks.test', { a: ['127.0.0.1'], ttl: 60 });
    const policy = policyOn({ allowPrivateNetworks: true });
    await policy.check('https://lan.hooks.test/');
    await policy.check('https://lan.hooks.test/');
    expect(queriesOf('lan.hooks.test')).toBe(2);
  });
});

describe('DNS rebinding with the cache', () => {
  it('an answer that changes to a private address is refused once the public one has expired', async () => {
    dns.set('rebind.hooks.test', (query) =>
      query.type === 'A' ? { a: [query.count === 1 ? PUBLIC : '127.0.0.1'], ttl: 5 } : {},
    );
    const policy = policyOn();
    expect((await policy.check('https://rebind.hooks.test/')).addresses).toEqual([
      { address: PUBLIC, family: 4 },
    ]);
    now += 5000;
    expect(policy.known('https://rebind.hooks.test/')).toBeUndefined();
    expect((await refusal(policy.check('https://rebind.hooks.test/'))).reason).toBe('private_address');
    // The refusal is what is cached now, not the old public set.
    expect((await refusal(policy.check('https://rebind.hooks.test/'))).reason).toBe('private_address');
  });

  it('an answer that adds a private address to the public one is refused whole', async () => {
    dns.set('adds.hooks.test', (query) =>
      query.type === 'A' ? { a: query.count === 1 ? [PUBLIC] : [PUBLIC, '169.254.169.254'], ttl: 1 } : {},
    );
    const policy = policyOn();
    await policy.check('https://adds.hooks.test/');
    now += 1000;
    expect((await refusal(policy.check('https://adds.hooks.test/'))).reason).toBe('private_address');
  });

  it('a zero TTL does not bypass the check: every reuse is of the judged set, for 1 s at most', async () => {
    dns.set('zero-rebind.hooks.test', (query) =>
      query.type === 'A' ? { a: [query.count === 1 ? PUBLIC : '10.1.2.3'], ttl: 0 } : {},
    );
    const policy = policyOn();
    const first = await policy.check('https://zero-rebind.hooks.test/');
    now += 500;
    expect((await policy.check('https://zero-rebind.hooks.test/')).addresses).toEqual(first.addresses);
    now += 500;
    expect((await refusal(policy.check('https://zero-rebind.hooks.test/'))).reason).toBe('private_address');
  });
});

describe('a custom resolver and the cache', () => {
  it('answers with a ttl are cached once checked', async () => {
    let calls = 0;
    const resolve: HostResolver = async () => {
      calls += 1;
      return [{ address: PUBLIC, family: 4, ttl: 60 }];
    };
    const policy = createUrlPolicy({ resolve }, { now: () => now });
    await policy.check('https://custom.example/');
    await policy.check('https://custom.example/');
    expect(calls).toBe(1);
  });

  it('answers without ttl and failures are asked afresh every time', async () => {
    let calls = 0;
    const resolve: HostResolver = async (hostname) => {
      calls += 1;
      if (hostname === 'gone.example') throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      return [{ address: PUBLIC, family: 4 }];
    };
    const policy = createUrlPolicy({ resolve }, { now: () => now });
    await policy.check('https://plain.example/');
    await policy.check('https://plain.example/');
    await refusal(policy.check('https://gone.example/'));
    await refusal(policy.check('https://gone.example/'));
    expect(calls).toBe(4);
  });
});

describe('the per-agency limit on lookups in flight', () => {
  it('past the limit a check fails at once as unresolvable_host, starts no query and caches nothing', async () => {
    dns.set('*.slow.hooks.test', { a: [PUBLIC], delayMs: 300 });
    const policy = policyOn({ maxLookupsPerAgency: 1 });
    let firstSettled = false;
    const first = policy.check('https://one.slow.hooks.test/', { agencyId: 'a' }).finally(() => {
      firstSettled = true;
    });
    const refused = await refusal(policy.check('https://two.slow.hooks.test/', { agencyId: 'a' }));
    expect(firstSettled).toBe(false); // refused at once, not after waiting for a slot
    expect(refused.reason).toBe('unresolvable_host');
    expect(refused.message).toContain('1 DNS lookups in flight');
    expect(queriesOf('two.slow.hooks.test')).toBe(0);
    // Joining the agency's own lookup, another agency, and a check without agency all go on.
    await Promise.all([
      first,
      policy.check('https://one.slow.hooks.test/other', { agencyId: 'a' }),
      policy.check('https://two.slow.hooks.test/', { agencyId: 'b' }),
      policy.check('https://three.slow.hooks.test/'),
    ]);
    expect(queriesOf('one.slow.hooks.test')).toBe(2);
    // Once its lookup is done, the agency may start another.
    await policy.check('https://four.slow.hooks.test/', { agencyId: 'a' });
  });

  it('is 4 by default', async () => {
    dns.set('*.wait.hooks.test', { a: [PUBLIC], delayMs: 200 });
    const policy = policyOn();
    const four = [1, 2, 3, 4].map((i) => policy.check(`https://n${i}.wait.hooks.test/`, { agencyId: 'a' }));
    expect((await refusal(policy.check('https://n5.wait.hooks.test/', { agencyId: 'a' }))).message).toContain(
      '4 DNS lookups in flight',
    );
    await Promise.all(four);
  });

  it('putConfig counts its lookup against the agency', async () => {
    dns.set('*.put.hooks.test', { a: [PUBLIC], delayMs: 300 });
    const service = createWebhookService({
      store: createMemoryStore(),
      queue: createMemoryQueue(),
      urlPolicy: { dnsServers: [dns.address], maxLookupsPerAgency: 1 },
    });
    const body = (host: string) => ({
      webhookUrl: `https://${host}.put.hooks.test/in`,
      enabled: true,
      subscribedEventTypes: ['job_created'],
    });
    try {
      const first = service.putConfig('agency-a', body('one'));
      await expect(service.putConfig('agency-a', body('two'))).rejects.toMatchObject({
        reason: 'unresolvable_host',
      });
      await expect(service.putConfig('agency-b', body('two'))).resolves.toMatchObject({ created: true });
      await expect(first).resolves.toMatchObject({ created: true });
    } finally {
      await service.close();
    }
  });
});
