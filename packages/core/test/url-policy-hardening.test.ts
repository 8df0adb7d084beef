import { hostResolver, jobCancelled, startServiceHarness } from '@svc/test-support';
import { describe, expect, it } from 'vitest';
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  DEFAULT_DENIED_RANGES,
  InvalidOptionError,
  type InvalidUrlReason,
  InvalidWebhookUrlError,
} from '../src/index';
import { createUrlPolicy, type UrlPolicyOptions } from '../src/transport/url-policy';

/** The reason a check was refused with, or 'accepted'. */
async function verdictOf(check: Promise<unknown>): Promise<InvalidUrlReason | 'accepted'> {
  try {
    await check;
    return 'accepted';
  } catch (error) {
    if (error instanceof InvalidWebhookUrlError) return error.reason;
    throw error;
  }
}

const noLookup = () => Promise.reject(new Error('no DNS in this test'));

function policy(options: UrlPolicyOptions = {}) {
  return createUrlPolicy({ resolve: noLookup, ...options });
}

describe('explicit ports', () => {
  it.each([
    ['https://93.184.216.34:0/hooks', 'invalid_url'],
    ['https://93.184.216.34:00/hooks', 'invalid_url'],
    ['https://93.184.216.34:65536/hooks', 'invalid_url'],
    ['https://93.184.216.34:99999999/hooks', 'invalid_url'],
    ['https://93.184.216.34:-1/hooks', 'invalid_url'],
    ['https://93.184.216.34:1/hooks', 'accepted'],
    ['https://93.184.216.34:65535/hooks', 'accepted'],
    ['https://93.184.216.34:8443/hooks', 'accepted'],
  ] as const)('%s is %s', async (url, verdict) => {
    expect(await verdictOf(policy().check(url))).toBe(verdict);
  });

  it('a port refusal says which ports are allowed', async () => {
    await expect(policy().check('https://93.184.216.34:0/')).rejects.toThrow(/between 1 and 65535/);
  });
});

describe('the normalised URL', () => {
  const resolve = hostResolver({ 'evil.example': '93.184.216.34', 'good.example': '93.184.216.35' });

  it.each([
    // WHATWG reads a backslash as a slash in https URLs: the host is evil.example, not good.example.
    ['https://evil.example\\@good.example/', 'https://evil.example/@good.example/', 'evil.example'],
    ['HTTPS://EVIL.example:443/a/../b?x=1#top', 'https://evil.example/b?x=1#top', 'evil.example'],
    ['https://evil.example:00443/in', 'https://evil.example/in', 'evil.example'],
    ['https://evil.example/ü space', 'https://evil.example/%C3%BC%20space', 'evil.example'],
    ['https://0x5d.184.216.34/', 'https://93.184.216.34/', '93.184.216.34'],
  ])('%s is checked, stored and sent as %s (host %s)', async (typed, href, hostname) => {
    const checked = await createUrlPolicy({ resolve }).check(typed);
    expect(checked.url.href).toBe(href);
    expect(checked.hostname).toBe(hostname);
  });

  it('putConfig stores and returns the normalised href; a read shows the same', async () => {
    const service = createWebhookService({
      store: createMemoryStore(),
      queue: createMemoryQueue(),
      urlPolicy: { resolve },
    });
    const saved = await service.putConfig('agency-1', {
      webhookUrl: 'https://evil.example\\@good.example/in',
      enabled: true,
      subscribedEventTypes: ['job_created'],
    });
    expect(saved.webhookUrl).toBe('https://evil.example/@good.example/in');
    expect((await service.getConfig('agency-1')).webhookUrl).toBe('https://evil.example/@good.example/in');
    await service.close();
  });
});

describe('configurations saved before normalisation', () => {
  it('are not rewritten: a read shows the string as stored, and the send goes to its parsed form', async () => {
    const harness = await startServiceHarness();
    try {
      const typed = `HTTPS://HOOKS.test:${harness.receiver.port}/old/../hooks?v=1`;
      // Written straight to the store, as a row saved by an earlier release would be.
      await harness.webhooks.store.upsertConfig({
        agencyId: 'agency-old',
        webhookUrl: typed,
        enabled: true,
        subscribedEventTypes: ['job_cancelled'],
        now: Date.now(),
        newId: 'cfg-old',
        newSigningSecret: 'a'.repeat(64),
      });
      expect((await harness.webhooks.getConfig('agency-old')).webhookUrl).toBe(typed);
      const emitted = await harness.webhooks.emit(jobCancelled('agency-old'));
      await harness.waitForStatus('agency-old', emitted!.deliveryId, 'success');
      const [request] = harness.receiver.requests;
      expect(request?.path).toBe('/hooks?v=1');
      expect(request?.headers.host).toBe(`hooks.test:${harness.receiver.port}`);
    } finally {
      await harness.close();
    }
  });
});

describe('deniedRanges', () => {
  it('exports its documented defaults, frozen', () => {
    expect(DEFAULT_DENIED_RANGES).toEqual([
      '169.254.0.0/16',
      '168.63.129.16/32',
      '100.100.100.200/32',
      'fd00:ec2::254/128',
      'fd00:ec2::253/128',
      'fd00:ec2::123/128',
      'fe80::a9fe:a9fe/128',
    ]);
    expect(Object.isFrozen(DEFAULT_DENIED_RANGES)).toBe(true);
  });

  // 168.63.129.16 is public unicast to the built-in rule: only the default list refuses it.
  it.each([
    ['https://168.63.129.16/', 'Azure WireServer'],
    ['https://[::ffff:168.63.129.16]/', 'Azure WireServer, IPv4-mapped'],
    ['https://[64:ff9b::a83f:8110]/', 'Azure WireServer through NAT64'],
    ['https://[2002:a83f:8110::1]/', 'Azure WireServer through 6to4'],
  ])('refuses %s (%s) by default', async (url) => {
    expect(await verdictOf(policy().check(url))).toBe('private_address');
  });

  const cloudAddresses = [
    ['https://169.254.169.254/latest/meta-data/', 'the metadata address of most clouds'],
    ['https://169.254.170.2/', 'elsewhere in IPv4 link-local'],
    ['https://168.63.129.16/', 'Azure WireServer'],
    ['https://100.100.100.200/', 'Alibaba Cloud metadata'],
    ['https://[fd00:ec2::254]/', 'AWS IPv6 metadata'],
    ['https://[fe80::a9fe:a9fe]/', 'OpenStack IPv6 metadata'],
  ];
  it.each(cloudAddresses)('still refuses %s (%s) with allowPrivateNetworks on', async (url) => {
    expect(await verdictOf(policy({ allowPrivateNetworks: true }).check(url))).toBe('private_address');
  });

  it.each([
    ['https://127.0.0.1:8443/', 'loopback'],
    ['https://10.0.0.5/', 'private 10/8'],
    ['https://100.64.0.1/', 'carrier-grade NAT, beside Alibaba’s address'],
    ['https://[fd00:ec2::1]/', 'another AWS-style unique local address'],
  ])('allowPrivateNetworks still reaches %s (%s)', async (url) => {
    expect(await verdictOf(policy({ allowPrivateNetworks: true }).check(url))).toBe('accepted');
  });

  it('refuses a hostname when one of its addresses is denied, also with allowPrivateNetworks', async () => {
    const resolve = hostResolver({ 'mixed.example': ['10.0.0.5', '168.63.129.16'] });
    const checked = createUrlPolicy({ allowPrivateNetworks: true, resolve }).check('https://mixed.example/');
    expect(await verdictOf(checked)).toBe('private_address');
  });

  it('adds to the built-in rule and never removes from it: [] still refuses private addresses', async () => {
    const open = policy({ deniedRanges: [] });
    expect(await verdictOf(open.check('https://10.0.0.5/'))).toBe('private_address');
    expect(await verdictOf(open.check('https://169.254.169.254/'))).toBe('private_address');
    // Only the cloud list is gone: the public-looking WireServer address passes the built-in rule.
    expect(await verdictOf(open.check('https://168.63.129.16/'))).toBe('accepted');
  });

  it('holds at send time too: a name that moves to the metadata address is not sent to', async () => {
    const resolve = hostResolver({
      'moving.hooks.test': (call) => (call === 1 ? '127.0.0.1' : '169.254.169.254'),
    });
    const harness = await startServiceHarness({
      service: { retry: { maxAttempts: 1 }, urlPolicy: { allowPrivateNetworks: true, resolve } },
    });
    try {
      await harness.webhooks.putConfig('agency-a', {
        webhookUrl: `https://moving.hooks.test:${harness.receiver.port}/hooks`,
        enabled: true,
        subscribedEventTypes: ['job_cancelled'],
      });
      const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
      const failed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
      expect(failed.lastErrorMessage).toMatch(/private, reserved or blocked address/);
      expect(harness.receiver.requests).toHaveLength(0);
    } finally {
      await harness.close();
    }
  });

  it('takes the host’s own ranges, in IPv4 and IPv6, single addresses included', async () => {
    const own = policy({
      deniedRanges: [...DEFAULT_DENIED_RANGES, '93.184.216.0/24', '2606:4700::/32', '8.8.8.8'],
    });
    expect(await verdictOf(own.check('https://93.184.216.34/'))).toBe('private_address');
    expect(await verdictOf(own.check('https://[::ffff:93.184.216.34]/'))).toBe('private_address');
    expect(await verdictOf(own.check('https://[2606:4700::1111]/'))).toBe('private_address');
    expect(await verdictOf(own.check('https://8.8.8.8/'))).toBe('private_address');
    expect(await verdictOf(own.check('https://168.63.129.16/'))).toBe('private_address');
    expect(await verdictOf(own.check('https://93.184.217.1/'))).toBe('accepted');
    expect(await verdictOf(own.check('https://8.8.4.4/'))).toBe('accepted');
  });

  it.each([
    ['not a CIDR', ['not-a-cidr']],
    ['a truncated address', ['10.0.0/8']],
    ['an octal address', ['010.0.0.0/8']],
    ['an IPv4 prefix over 32', ['10.0.0.0/33']],
    ['an IPv6 prefix over 128', ['2001:db8::/129']],
    ['a negative prefix', ['10.0.0.0/-1']],
    ['an empty prefix', ['10.0.0.0/']],
    ['two prefixes', ['10.0.0.0/8/16']],
    ['a number', [167772160]],
    ['a string instead of an array', '10.0.0.0/8'],
  ])('refuses %s as InvalidOptionError naming urlPolicy.deniedRanges', (_name, deniedRanges) => {
    const create = () => policy({ deniedRanges: deniedRanges as string[] });
    expect(create).toThrow(InvalidOptionError);
    expect(create).toThrow(/urlPolicy\.deniedRanges/);
  });
});
