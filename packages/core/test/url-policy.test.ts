import { hostResolver } from '@svc/test-support';
import { describe, expect, it } from 'vitest';
import { type InvalidUrlReason, InvalidWebhookUrlError } from '../src/errors';
import {
  assertUrlShape,
  createUrlPolicy,
  type HostResolver,
  isPublicAddress,
} from '../src/transport/url-policy';

/** A resolver that fails the test if the policy asks it anything. */
const noLookup: HostResolver = async (hostname) => {
  throw new Error(`unexpected DNS lookup of ${hostname}`);
};

async function refusal(promise: Promise<unknown>): Promise<InvalidWebhookUrlError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof InvalidWebhookUrlError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

async function reasonOf(promise: Promise<unknown>): Promise<InvalidUrlReason> {
  return (await refusal(promise)).reason;
}

describe('isPublicAddress', () => {
  const refused: Array<[string, string]> = [
    ['127.0.0.1', 'IPv4 loopback'],
    ['127.255.255.254', 'IPv4 loopback, end of the /8'],
    ['10.0.0.1', 'RFC 1918 10/8'],
    ['172.16.0.1', 'RFC 1918 172.16/12, start'],
    ['172.31.255.255', 'RFC 1918 172.16/12, end'],
    ['192.168.1.1', 'RFC 1918 192.168/16'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.1', 'documentation (TEST-NET-1)'],
    ['198.18.0.1', 'benchmarking'],
    ['240.0.0.1', 'reserved class E'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fc00::1', 'unique local fc00::/7'],
    ['fd12:3456::1', 'unique local fd00::/8'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['fec0::1', 'deprecated site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard prefix'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata address'],
    ['::ffff:0:7f00:1', 'RFC 6145 translated loopback'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hex form'],
    ['::a00:1', 'IPv4-compatible private'],
    ['64:ff9b::7f00:1', 'NAT64 well-known prefix, loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 well-known prefix, metadata address'],
    ['64:ff9b:1::7f00:1', 'NAT64 local-use prefix, loopback'],
    ['64:ff9b:1::5db8:d822', 'NAT64 local-use prefix, refused whole: 93.184.216.34 in the last 32 bits'],
    [
      '64:ff9b:1:5db8:d8:2200::',
      'NAT64 local-use prefix, refused whole: 93.184.216.34 in the RFC 6052 /48 layout',
    ],
    ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'NAT64 local-use prefix, its last address'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo, client 10.0.0.1'],
    ['2001:0:a00:1:8000:63bf:a247:27dd', 'Teredo, server 10.0.0.1'],
    ['0177.0.0.1', 'octal form (not canonical)'],
    ['127.1', 'short form (not canonical)'],
    ['2130706433', 'decimal form (not canonical)'],
    ['hooks.example.com', 'a hostname'],
    ['', 'empty'],
  ];
  it.each(refused)('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  const accepted: Array<[string, string]> = [
    ['93.184.216.34', 'public IPv4'],
    ['8.8.8.8', 'public IPv4'],
    ['172.15.255.255', 'just below 172.16/12'],
    ['172.32.0.1', 'just above 172.16/12'],
    ['100.63.255.255', 'just below carrier-grade NAT'],
    ['2606:4700::1111', 'public IPv6'],
    ['2a00:1450:4001:80b::200e', 'public IPv6'],
    ['::ffff:93.184.216.34', 'IPv4-mapped public'],
    ['64:ff9b::5db8:d822', 'NAT64 of 93.184.216.34'],
    ['2002:5db8:d822::1', '6to4 of 93.184.216.34'],
    ['2001:0:4136:e378:8000:63bf:a247:27dd', 'Teredo, client 93.184.216.34'],
  ];
  it.each(accepted)('accepts %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('createUrlPolicy().check with IP-literal hosts (no DNS)', () => {
  const policy = createUrlPolicy({ resolve: noLookup });
  const privateHosts: Array<[string, string]> = [
    ['https://2130706433/', 'decimal 127.0.0.1'],
    ['https://0177.0.0.1/', 'octal 127.0.0.1'],
    ['https://0x7f.1/', 'hex short 127.0.0.1'],
    ['https://127.1/', 'short 127.0.0.1'],
    ['https://127.0.0.1:8443/hooks', 'loopback with a port'],
    ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
    ['https://[::1]/', 'IPv6 loopback'],
    ['https://[fc00::1]/', 'unique local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['https://100.64.0.1/', 'carrier-grade NAT'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://255.255.255.255/', 'broadcast'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://10.1.2.3/', 'private 10/8'],
    ['https://[64:ff9b::7f00:1]/', 'NAT64 of loopback'],
    ['https://[2002:7f00:1::]/', '6to4 of loopback'],
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'Teredo of loopback'],
  ];
  it.each(privateHosts)('refuses %s (%s) as private_address', async (url) => {
    expect(await reasonOf(policy.check(url))).toBe('private_address');
  });

  it('accepts a public IPv4 host and reports it as the address to connect to', async () => {
    const checked = await policy.check('https://93.184.216.34/hooks?x=1');
    expect(checked.hostname).toBe('93.184.216.34');
    expect(checked.addresses).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(checked.url.pathname).toBe('/hooks');
  });

  it('accepts a public IPv6 host and strips the brackets', async () => {
    const checked = await policy.check('https://[2606:4700::1111]/in');
    expect(checked.hostname).toBe('2606:4700::1111');
    expect(checked.addresses).toEqual([{ address: '2606:4700::1111', family: 6 }]);
  });
});

describe('URL shape', () => {
  const policy = createUrlPolicy({ resolve: noLookup });
  const cases: Array<[string, InvalidUrlReason]> = [
    ['http://93.184.216.34/hooks', 'not_https'],
    ['HTTP://93.184.216.34/', 'not_https'],
    ['ftp://93.184.216.34/', 'not_https'],
    ['javascript:alert(1)', 'not_https'],
    ['file:///etc/passwd', 'not_https'],
    ['not a url', 'invalid_url'],
    ['', 'invalid_url'],
    ['/relative/path', 'invalid_url'],
    ['https://', 'invalid_url'],
    ['https://exa mple.com/', 'invalid_url'],
    ['https://user:secret@93.184.216.34/', 'invalid_url'],
    ['https://user@93.184.216.34/', 'invalid_url'],
    ['https://localhost/', 'private_address'],
    ['https://LOCALHOST:8443/hooks', 'private_address'],
    ['https://api.localhost/', 'private_address'],
    ['https://localhost./', 'private_address'],
  ];
  it.each(cases)('%s is refused as %s without a lookup', async (url, reason) => {
    expect(await reasonOf(policy.check(url))).toBe(reason);
  });

  it('allowHttp accepts http (and still refuses other schemes)', async () => {
    const devPolicy = createUrlPolicy({ allowHttp: true, resolve: noLookup });
    expect((await devPolicy.check('http://93.184.216.34/in')).url.protocol).toBe('http:');
    expect(await reasonOf(devPolicy.check('ftp://93.184.216.34/'))).toBe('not_https');
  });

  it('assertUrlShape is the synchronous part and returns the parsed URL', () => {
    expect(assertUrlShape('https://hooks.example.com/in', {}).hostname).toBe('hooks.example.com');
    expect(() => assertUrlShape('http://hooks.example.com/', {})).toThrow(InvalidWebhookUrlError);
    expect(assertUrlShape('https://localhost/', { allowPrivateNetworks: true }).hostname).toBe('localhost');
  });

  it('refusals are InvalidWebhookUrlError with code invalid_webhook_url and the reason in details', async () => {
    const error = await refusal(policy.check('http://93.184.216.34/'));
    expect(error.code).toBe('invalid_webhook_url');
    expect(error.details).toEqual({ reason: 'not_https' });
    expect(error.message).toMatch(/https/);
  });
});

describe('createUrlPolicy().check with DNS names', () => {
  it('accepts a name whose every address is public, keeping the resolver order', async () => {
    const resolve = hostResolver({ 'hooks.example': ['93.184.216.34', '2606:4700::1111'] });
    const checked = await createUrlPolicy({ resolve }).check('https://hooks.example/in');
    expect(checked.hostname).toBe('hooks.example');
    expect(checked.addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
  });

  it('refuses a name with one public and one private address', async () => {
    const resolve = hostResolver({ 'mixed.example': ['93.184.216.34', '10.0.0.7'] });
    const error = await refusal(createUrlPolicy({ resolve }).check('https://mixed.example/'));
    expect(error.reason).toBe('private_address');
    expect(error.message).not.toContain('10.0.0.7');
  });

  it('refuses a name whose AAAA record is IPv6 loopback', async () => {
    const resolve = hostResolver({ 'six.example': ['2606:4700::1111', '::1'] });
    expect(await reasonOf(createUrlPolicy({ resolve }).check('https://six.example/'))).toBe(
      'private_address',
    );
  });

  it('resolves afresh on every check (a rebinding name is caught on the second check)', async () => {
    const resolve = hostResolver({
      'rebind.example': (call) => (call === 1 ? '93.184.216.34' : '127.0.0.1'),
    });
    const policy = createUrlPolicy({ resolve });
    await policy.check('https://rebind.example/');
    expect(await reasonOf(policy.check('https://rebind.example/'))).toBe('private_address');
    expect(resolve.calls('rebind.example')).toBe(2);
  });

  it('an empty answer is unresolvable_host', async () => {
    const resolve = hostResolver({ 'empty.example': [] });
    expect(await reasonOf(createUrlPolicy({ resolve }).check('https://empty.example/'))).toBe(
      'unresolvable_host',
    );
  });

  it('ENOTFOUND is unresolvable_host', async () => {
    const resolve = hostResolver({});
    const error = await refusal(createUrlPolicy({ resolve }).check('https://missing.example/'));
    expect(error.reason).toBe('unresolvable_host');
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
  });

  it('answers that are not IP addresses do not count as a resolution', async () => {
    const resolve: HostResolver = async () => [{ address: 'not-an-ip', family: 4 }];
    expect(await reasonOf(createUrlPolicy({ resolve }).check('https://odd.example/'))).toBe(
      'unresolvable_host',
    );
  });

  it('a resolver that never answers is unresolvable_host after lookupTimeoutMs', async () => {
    const resolve: HostResolver = () => new Promise(() => undefined);
    const error = await refusal(
      createUrlPolicy({ resolve, lookupTimeoutMs: 50 }).check('https://slow.example/'),
    );
    expect(error.reason).toBe('unresolvable_host');
    expect(error.message).toContain('50 ms');
  });

  it('a resolver that throws synchronously is unresolvable_host', async () => {
    const resolve: HostResolver = () => {
      throw new Error('resolver bug');
    };
    expect(await reasonOf(createUrlPolicy({ resolve }).check('https://boom.example/'))).toBe(
      'unresolvable_host',
    );
  });
});

describe('allowPrivateNetworks', () => {
  it('skips the address check but still resolves the name', async () => {
    const resolve = hostResolver({ localhost: '127.0.0.1', 'hooks.test': '10.0.0.5' });
    const policy = createUrlPolicy({ allowPrivateNetworks: true, resolve });
    expect((await policy.check('https://localhost:8443/')).addresses).toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
    expect((await policy.check('https://hooks.test/')).addresses[0]?.address).toBe('10.0.0.5');
    expect((await policy.check('https://[::1]/')).addresses).toEqual([{ address: '::1', family: 6 }]);
    expect(resolve.calls('localhost')).toBe(1);
    expect(await reasonOf(policy.check('https://missing.test/'))).toBe('unresolvable_host');
  });

  it('is off by default, and so is allowHttp', () => {
    const policy = createUrlPolicy();
    expect(policy.allowPrivateNetworks).toBe(false);
    expect(policy.allowHttp).toBe(false);
  });
});

describe('the system resolver (default)', () => {
  it('resolves localhost when private networks are allowed', async () => {
    const checked = await createUrlPolicy({ allowPrivateNetworks: true }).check('https://localhost/');
    expect(checked.addresses.length).toBeGreaterThan(0);
    expect(checked.addresses.every(({ address }) => !isPublicAddress(address))).toBe(true);
  });

  it('refuses a name under the reserved .invalid TLD as unresolvable_host', async () => {
    expect(await reasonOf(createUrlPolicy().check('https://no-such-host.invalid/'))).toBe(
      'unresolvable_host',
    );
  });
});
