import { describe, expect, it } from 'vitest';
import {
  generateSigningSecret,
  isMaskedSigningSecret,
  maskSigningSecret,
  SIGNING_SECRET_MASK_PREFIX,
} from '../src/config/secret';

describe('generateSigningSecret()', () => {
  it('returns 64 lowercase hex characters (256 bits)', () => {
    expect(generateSigningSecret()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('returns a different secret on every call', () => {
    const secrets = new Set(Array.from({ length: 100 }, () => generateSigningSecret()));
    expect(secrets.size).toBe(100);
  });
});

describe('maskSigningSecret()', () => {
  const secret = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

  it.each([
    [secret, 'service_whsec_********0a08'],
    ['0123456789abcdef', 'service_whsec_********cdef'],
    ['0123456789abcde', 'service_whsec_********'],
    ['abcd', 'service_whsec_********'],
    ['', 'service_whsec_********'],
  ])('maskSigningSecret(%j) is %j', (input, expected) => {
    expect(maskSigningSecret(input)).toBe(expected);
  });

  it('starts with the exported prefix and never contains more of the secret than its last four characters', () => {
    const masked = maskSigningSecret(secret);
    expect(masked.startsWith(SIGNING_SECRET_MASK_PREFIX)).toBe(true);
    expect(SIGNING_SECRET_MASK_PREFIX).toBe('service_whsec_');
    expect(masked).not.toContain(secret.slice(-5));
  });
});

describe('isMaskedSigningSecret()', () => {
  it.each([
    ['service_whsec_********0a08', true],
    ['service_whsec_********', true],
    ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', false],
    ['service_whsec_0a08', false],
    ['whsec_********0a08', false],
  ])('isMaskedSigningSecret(%j) is %s', (value, expected) => {
    expect(isMaskedSigningSecret(value)).toBe(expected);
  });

  it('recognises what maskSigningSecret writes', () => {
    expect(isMaskedSigningSecret(maskSigningSecret(generateSigningSecret()))).toBe(true);
  });
});
