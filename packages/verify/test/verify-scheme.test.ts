import { generateStandardKeyPair, publicKeyToJwk, signStandardWebhookAsymmetric } from '@svc/webhooks-verify';
import { describe, expect, it } from 'vitest';
import { entries, rejection } from './entries';
import {
  BODY,
  ID,
  NOW,
  NOW_SECONDS,
  OTHER_SECRET,
  referenceHeader,
  referenceStandardSignature,
  SECRET,
  standardHeaders,
} from './fixtures';
import { standardEntries } from './standard-entries';

/*
 * verifyWebhook and verifyWebhookSignature (and their async twins) given the request's headers: the scheme
 * is chosen by the headers present, or forced by options.scheme. A header value keeps the spec's meaning.
 */

const at = { now: NOW };
const service = { 'x-service-signature': referenceHeader(BODY, SECRET, NOW) };
const standard = standardHeaders(referenceStandardSignature(BODY, SECRET));
const both = { ...service, ...standard };

describe.each(standardEntries)('$name scheme choice', (entry) => {
  it('verifies by webhook-signature when present, returning the id too', async () => {
    await expect(entry.verifyAny(BODY, standard, SECRET, at)).resolves.toEqual(JSON.parse(BODY));
    await expect(entry.verifyAnySignature(BODY, standard, SECRET, at)).resolves.toEqual({
      id: ID,
      timestamp: NOW,
    });
  });

  it('verifies by X-Service-Signature when it is the only signature header, Headers object included', async () => {
    await expect(entry.verifyAnySignature(BODY, service, SECRET, at)).resolves.toEqual({ timestamp: NOW });
    const headers = new Headers({ 'X-Service-Signature': service['x-service-signature'] });
    await expect(entry.verifyAny(BODY, headers, SECRET, at)).resolves.toEqual(JSON.parse(BODY));
  });

  it('prefers the Standard Webhooks headers when both families are present (scheme "both")', async () => {
    const broken = { ...both, 'x-service-signature': referenceHeader(BODY, OTHER_SECRET, NOW) };
    await expect(entry.verifyAnySignature(BODY, broken, SECRET, at)).resolves.toMatchObject({ id: ID });
  });

  it('verifies v1a with only the JWKS when both families are present', async () => {
    const { privateKey, publicKey } = generateStandardKeyPair();
    const v1a = signStandardWebhookAsymmetric(BODY, privateKey, ID, NOW_SECONDS);
    const headers = { ...both, 'webhook-signature': `${standard['webhook-signature']} ${v1a}` };
    const jwks = { keys: [publicKeyToJwk(publicKey, 'whkey_1')] };
    await expect(entry.verifyAnySignature(BODY, headers, jwks, at)).resolves.toMatchObject({ id: ID });
  });

  it('uses X-Service-Signature when forced with scheme: "service", whatever webhook-signature says', async () => {
    const broken = { ...both, 'webhook-signature': referenceStandardSignature(BODY, OTHER_SECRET) };
    await expect(
      entry.verifyAnySignature(BODY, broken, SECRET, { ...at, scheme: 'service' }),
    ).resolves.toEqual({
      timestamp: NOW,
    });
  });

  it('refuses a delivery without the Standard Webhooks headers when forced with scheme: "standard"', async () => {
    const error = await rejection(entry.verifyAny(BODY, service, SECRET, { ...at, scheme: 'standard' }));
    expect(error.code).toBe('missing_header');
    expect(error.message).toContain('webhook-id');
  });

  it('refuses a request with neither header, naming both', async () => {
    const error = await rejection(entry.verifyAny(BODY, { 'content-type': 'application/json' }, SECRET, at));
    expect(error.code).toBe('missing_header');
    expect(error.message).toMatch(/neither an X-Service-Signature nor a webhook-signature header/);
  });

  it('reports a parsed body before missing headers, as for a header value', async () => {
    const error = await rejection(entry.verifyAny({} as unknown as string, {}, SECRET, at));
    expect(error.code).toBe('invalid_body');
  });

  it('refuses public keys alone for X-Service-Signature, and takes the secrets of StandardKeys', async () => {
    const jwks = { keys: [publicKeyToJwk(generateStandardKeyPair().publicKey, 'k')] };
    const error = await rejection(entry.verifyAny(BODY, service, jwks, at));
    expect(error.code).toBe('invalid_secret');
    expect(error.message).toMatch(/verifies with the signing secret/);
    await expect(entry.verifyAny(BODY, service, { ...jwks, secrets: SECRET }, at)).resolves.toBeDefined();
  });

  it('refuses an unknown scheme with invalid_option', async () => {
    const error = await rejection(
      entry.verifyAny(BODY, standard, SECRET, { ...at, scheme: 'both' as 'standard' }),
    );
    expect(error.code).toBe('invalid_option');
    expect(error.message).toMatch(/'service' or 'standard'/);
  });
});

describe.each(entries)('$name with a header value', (entry) => {
  it('keeps the spec’s meaning, and scheme: "service" changes nothing', async () => {
    const header = referenceHeader(BODY, SECRET, NOW);
    await expect(entry.verifySignature(BODY, header, SECRET, at)).resolves.toEqual({ timestamp: NOW });
    const verify = entry.verifySignature as (...args: unknown[]) => Promise<unknown>;
    await expect(verify(BODY, header, SECRET, { ...at, scheme: 'service' })).resolves.toEqual({
      timestamp: NOW,
    });
  });

  it('refuses scheme: "standard" with invalid_option: Standard Webhooks needs the headers', async () => {
    const verify = entry.verifySignature as (...args: unknown[]) => Promise<unknown>;
    const error = await rejection(
      verify(BODY, referenceHeader(BODY, SECRET, NOW), SECRET, { ...at, scheme: 'standard' }),
    );
    expect(error.code).toBe('invalid_option');
    expect(error.message).toMatch(/needs the request's headers/);
  });

  it('takes the secrets of a StandardKeys object', async () => {
    const verify = entry.verifySignature as (...args: unknown[]) => Promise<unknown>;
    await expect(
      verify(BODY, referenceHeader(BODY, SECRET, NOW), { secrets: [SECRET] }, at),
    ).resolves.toEqual({
      timestamp: NOW,
    });
  });
});
