import { InvalidOptionError, WebhookError } from '@svc/webhooks-core';
import { describe, expect, it } from 'vitest';
import { createWebhooksRouter, type WebhooksRouterOptions } from '../src/index';
import { createHarness } from './router-harness';

const service = createHarness().service;
const authenticate: WebhooksRouterOptions['authenticate'] = async () => null;

function create(options: Record<string, unknown>) {
  return () => createWebhooksRouter(options as unknown as WebhooksRouterOptions);
}

describe('createWebhooksRouter refuses options it cannot work with, when it is created', () => {
  const refused: [string, Record<string, unknown>, string][] = [
    ['no service', { authenticate }, 'service'],
    ['a service that is not a WebhookService', { service: { emit() {} }, authenticate }, 'service'],
    ['no authenticate', { service }, 'authenticate'],
    ['an authenticate that is not a function', { service, authenticate: 'tok_1' }, 'authenticate'],
    ['a bodyLimit that is not a size', { service, authenticate, bodyLimit: 'lots' }, 'bodyLimit'],
    ['a bodyLimit of zero', { service, authenticate, bodyLimit: 0 }, 'bodyLimit'],
    ['a negative bodyLimit', { service, authenticate, bodyLimit: '-1kb' }, 'bodyLimit'],
    ['a bodyLimit of NaN', { service, authenticate, bodyLimit: Number.NaN }, 'bodyLimit'],
    ['an onError that is not a function', { service, authenticate, onError: console }, 'onError'],
    ['a readToken that is not a function', { service, authenticate, readToken: 'session' }, 'readToken'],
    ['a publicKeys that is not a boolean', { service, authenticate, publicKeys: 'no' }, 'publicKeys'],
    [
      'a service without the signing-key methods',
      { service: { ...service, getPublicKeys: undefined }, authenticate },
      'service',
    ],
  ];

  it.each(refused)('%s → InvalidOptionError naming %s', (_name, options, option) => {
    const error = catchError(create(options));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toBeInstanceOf(WebhookError);
    expect(error).toMatchObject({ code: 'invalid_option', option });
    expect((error as Error).message).toMatch(new RegExp(`^@svc/webhooks-express: ${option} must be `));
  });

  it('says which service method is missing', () => {
    expect(catchError(create({ service: { emit() {} }, authenticate }))).toMatchObject({
      message: expect.stringContaining('got an object without putConfig()'),
    });
  });

  it.each([
    ['a size with a unit', '1mb'],
    ['a decimal size with a unit', '1.5kb'],
    ['bytes as a string', '512'],
    ['bytes as a number', 2048],
  ])('accepts %s as bodyLimit', (_name, bodyLimit) => {
    expect(create({ service, authenticate, bodyLimit })).not.toThrow();
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
