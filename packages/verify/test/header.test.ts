import { parseSignatureHeader, WebhookVerificationError } from '@svc/webhooks-verify';
import { describe, expect, it } from 'vitest';
import { thrown } from './fixtures';

const SIG = 'ab'.repeat(32);

describe('parseSignatureHeader', () => {
  it('reads t as a number and v1 as hex text', () => {
    expect(parseSignatureHeader(`t=1700000000000,v1=${SIG}`)).toEqual({
      timestamp: 1_700_000_000_000,
      signatures: [SIG],
    });
  });

  it('keeps every v1 in header order', () => {
    expect(parseSignatureHeader(`t=1,v1=aa,v1=${SIG},v1=BB`).signatures).toEqual(['aa', SIG, 'BB']);
  });

  it('ignores spaces and tabs around parts, keys and values, and empty parts', () => {
    expect(parseSignatureHeader(` ,t = 5 ,\tv1=\t${SIG} ,, `)).toEqual({ timestamp: 5, signatures: [SIG] });
  });

  it('ignores unknown keys, whatever their values', () => {
    expect(parseSignatureHeader(`v0=zz,t=5,v2=not hex,x=a=b,v1=${SIG}`).signatures).toEqual([SIG]);
  });

  it('splits a part on its first = only', () => {
    expect(() => parseSignatureHeader(`t=5,v1=${SIG}=`)).toThrow(/not hex/);
  });

  it('joins an array of header values, as some servers hand repeated headers over', () => {
    expect(parseSignatureHeader(['t=5', `v1=${SIG}`])).toEqual({ timestamp: 5, signatures: [SIG] });
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['an empty string', ''],
    ['spaces only', ' \t '],
    ['an empty array', []],
  ])('rejects %s as missing_header', (_label, header) => {
    const error = thrown(() => parseSignatureHeader(header));
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error.code).toBe('missing_header');
  });

  it.each([
    ['a part without =', `t=5,${SIG}`],
    ['an empty key', `t=5,=${SIG}`],
    ['a decimal t', `t=5.0,v1=${SIG}`],
    ['a negative t', `t=-5,v1=${SIG}`],
    ['a t in exponent form', `t=1e12,v1=${SIG}`],
    ['a t with non-ASCII digits', `t=١٢٣,v1=${SIG}`],
    ['a t longer than 15 digits', `t=1234567890123456,v1=${SIG}`],
    ['an empty t', `t=,v1=${SIG}`],
    ['t twice', `t=5,t=5,v1=${SIG}`],
    ['a v1 with a non-hex character', 't=5,v1=abcg'],
    ['a v1 with an odd number of digits', 't=5,v1=abc'],
    ['an empty v1', 't=5,v1='],
  ])('rejects %s as malformed_header', (_label, header) => {
    expect(thrown(() => parseSignatureHeader(header)).code).toBe('malformed_header');
  });

  it.each([
    ['a number', 42],
    ['an object', {}],
    ['an array holding a non-string', ['t=5', Symbol('v1')]],
  ])('rejects %s as malformed_header instead of a TypeError', (_label, header) => {
    expect(thrown(() => parseSignatureHeader(header as unknown as string)).code).toBe('malformed_header');
  });

  it('rejects a header without t as missing_timestamp', () => {
    expect(thrown(() => parseSignatureHeader(`v1=${SIG}`)).code).toBe('missing_timestamp');
  });

  it('rejects a header without v1, even with other versions, as missing_signature', () => {
    expect(thrown(() => parseSignatureHeader(`t=5,v0=${SIG},v2=${SIG}`)).code).toBe('missing_signature');
  });

  it('quotes at most a short excerpt of attacker-controlled header text in messages', () => {
    const error = thrown(() => parseSignatureHeader(`t=5,${'x'.repeat(5_000)}`));
    expect(error.message.length).toBeLessThan(300);
  });
});
