import { hostResolver } from '@svc/test-support';
import { describe, expect, it } from 'vitest';

describe('hostResolver(map)', () => {
  it('answers mapped names with families and counts calls per name', async () => {
    const resolve = hostResolver({ 'a.test': '127.0.0.1', 'b.test': ['::1', '10.0.0.1'] });
    expect(await resolve('a.test')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await resolve('b.test')).toEqual([
      { address: '::1', family: 6 },
      { address: '10.0.0.1', family: 4 },
    ]);
    expect(resolve.calls('a.test')).toBe(1);
    expect(resolve.calls('c.test')).toBe(0);
  });

  it('passes the call number to a function answer', async () => {
    const resolve = hostResolver({ 'r.test': (call) => (call === 1 ? '93.184.216.34' : '127.0.0.1') });
    expect((await resolve('r.test'))[0]?.address).toBe('93.184.216.34');
    expect((await resolve('r.test'))[0]?.address).toBe('127.0.0.1');
  });

  it('fails unknown names with ENOTFOUND, inherited keys included', async () => {
    const resolve = hostResolver({});
    await expect(resolve('nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolve('constructor')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
