import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  buildExampleEnvelope,
  builtInEvents,
  createEventCatalogue,
  defineEvent,
  webhookTestEvent,
} from '@svc/webhooks-core';
import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  apiErrorCodes,
  buildOpenApiDocument,
  createWebhooksRouter,
  openApiDocument,
  WEBHOOK_API_BASE_PATH,
} from '../src/index';
import { toOpenApiPath } from '../src/openapi';
import { createDocumentValidator } from './openapi-validator';
import { createHarness } from './router-harness';

/** `job_created` → `JobCreated`. */
function pascal(type: string): string {
  return type.replace(/(^|_)([a-z])/g, (_match, _separator, letter: string) => letter.toUpperCase());
}

type RouteLayer = { route?: { path: string; methods: Record<string, boolean> } };

/** Every (method, path) the router really mounts, read from Express's own routing table. */
function mountedOperations(): string[] {
  const router = createWebhooksRouter({ service: createHarness().service, authenticate: async () => null });
  const operations: string[] = [];
  for (const layer of router.stack as RouteLayer[]) {
    if (!layer.route) continue;
    for (const method of Object.keys(layer.route.methods)) {
      if (method !== '_all')
        operations.push(`${method} ${WEBHOOK_API_BASE_PATH}${toOpenApiPath(layer.route.path)}`);
    }
  }
  return operations.sort();
}

function documentedOperations(document = openApiDocument): string[] {
  return Object.entries(document.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
    .sort();
}

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };

function operations(): [string, Operation][] {
  return Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
    Object.entries(item).map(
      ([method, operation]) =>
        [`${method} ${path}`, operation as unknown as Operation] as [string, Operation],
    ),
  );
}

describe('openApiDocument', () => {
  it('describes exactly the routes the router mounts: the spec’s seven endpoints, the operations API’s and the signing keys’', () => {
    expect(mountedOperations()).toEqual(documentedOperations());
    expect(documentedOperations()).toEqual(
      [
        'put /v1/agency/webhooks/config',
        'get /v1/agency/webhooks/config',
        'post /v1/agency/webhooks/config/rotate-secret',
        'post /v1/agency/webhooks/config/test',
        'get /v1/agency/webhooks/deliveries',
        'get /v1/agency/webhooks/deliveries/{id}',
        'post /v1/agency/webhooks/deliveries/{id}/replay',
        'get /v1/agency/webhooks/deliveries/{id}/attempts',
        'get /v1/agency/webhooks/config/health',
        'post /v1/agency/webhooks/deliveries/recover',
        'get /v1/agency/webhooks/recoveries',
        'get /v1/agency/webhooks/recoveries/{id}',
        'post /v1/agency/webhooks/recoveries/{id}/cancel',
        'get /v1/agency/webhooks/event-types',
        'get /v1/agency/webhooks/event-types/schemas',
        'post /v1/agency/webhooks/config/rotate-signing-key',
        'get /v1/agency/webhooks/public-keys/{agencyId}',
      ].sort(),
    );
  });

  it('is the document committed as docs/openapi.json (run `pnpm --filter @svc/webhooks-express openapi` after a change)', () => {
    const file = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(openApiDocument);
  });

  it('is OpenAPI 3.1 with the authorization header as the security scheme of every operation', () => {
    expect(openApiDocument.openapi).toBe('3.1.0');
    expect(openApiDocument.security).toEqual([{ agentToken: [] }]);
    expect(openApiDocument.components.securitySchemes.agentToken).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'authorization',
    });
  });

  it('takes its components from the zod schemas’ ids, and names one envelope per event type', () => {
    expect(Object.keys(openApiDocument.components.schemas).sort()).toEqual(
      [
        'AttemptList',
        'AttemptRecord',
        'DeliveryDetail',
        'DeliveryList',
        'DeliverySummary',
        'EndpointHealth',
        'EntityType',
        'EventTypeList',
        'EventTypeSummary',
        'PutConfigBody',
        'RecoverDeliveriesBody',
        'Recovery',
        'RecoveryDryRun',
        'RecoveryList',
        'RecoveryStarted',
        'ReplayResult',
        'RotatedSecret',
        'RotatedSigningKey',
        'RotateSigningKeyBody',
        'SendTestBody',
        'SignatureScheme',
        'SigningJwk',
        'SigningJwks',
        'SigningPublicKey',
        'TestResult',
        'WebhookConfig',
        'WebhookApiErrorBody',
        'JobCreatedMetadata',
        'JobCancelledMetadata',
        'PropertyCreatedMetadata',
        'PropertyAddress',
        'QuoteApprovedMetadata',
        'JobFulfilmentRatingSubmittedMetadata',
        'FulfilmentRating',
        'WebhookTestMetadata',
        ...[...builtInEvents, webhookTestEvent].map((definition) => `${pascal(definition.type)}Event`),
      ].sort(),
    );
    expect(JSON.stringify(openApiDocument)).not.toContain('$defs');
  });

  it('takes an optional test body: { eventType }', () => {
    const operation = openApiDocument.paths['/v1/agency/webhooks/config/test']?.post as {
      requestBody: { required: boolean; content: Record<string, { schema: unknown }> };
    };
    expect(operation.requestBody.required).toBe(false);
    expect(operation.requestBody.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/SendTestBody',
    });
  });

  const PUBLIC_KEYS = '/v1/agency/webhooks/public-keys/{agencyId}';
  const withToken = operations().filter(([name]) => !name.endsWith(PUBLIC_KEYS));

  it.each(withToken)('%s lists 401, 403 and 500 with the error schema', (_name, operation) => {
    for (const status of ['401', '403', '500']) {
      const schema = JSON.stringify(operation.responses[status]?.content?.['application/json']?.schema);
      expect(schema).toContain('#/components/schemas/WebhookApiErrorBody');
    }
  });

  it('documents the public keys as needing no token: no security, no 401 or 403, a cacheable 200', () => {
    const operation = openApiDocument.paths[PUBLIC_KEYS]?.get as Operation & {
      security: unknown;
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    expect(withToken).toHaveLength(operations().length - 1);
    expect(operation.security).toEqual([]);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '404', '500', '503']);
    expect(operation.responses['200']?.headers).toEqual({
      'Cache-Control': {
        description: 'Always `public, max-age=300`.',
        schema: { type: 'string', const: 'public, max-age=300' },
      },
    });
    expect(JSON.stringify(operation.responses['404'])).toContain('config_not_found');
  });

  it('documents 429 rate_limited with its Retry-After on the rate-limited operations only: test sends and bulk recovery', () => {
    const limited = operations()
      .filter(([, operation]) => operation.responses['429'] !== undefined)
      .map(([name]) => name)
      .sort();
    expect(limited).toEqual([
      'post /v1/agency/webhooks/config/test',
      'post /v1/agency/webhooks/deliveries/recover',
    ]);
    for (const name of limited) {
      const [, operation] = operations().find(([candidate]) => candidate === name) as [string, Operation];
      const tooMany = operation.responses['429'] as {
        headers?: Record<string, { schema: unknown }>;
        content?: unknown;
      };
      expect(tooMany.headers?.['Retry-After']?.schema, name).toEqual({ type: 'integer', minimum: 1 });
      expect(JSON.stringify(tooMany.content), name).toContain('rate_limited');
    }
  });

  it('describes the signature fields of the configuration and of PUT /config', () => {
    const put = openApiDocument.components.schemas.PutConfigBody as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(put.properties)).toEqual(
      expect.arrayContaining(['signatureScheme', 'asymmetricSignatures']),
    );
    expect(put.required).not.toContain('signatureScheme');
    expect(put.required).not.toContain('asymmetricSignatures');
    const view = openApiDocument.components.schemas.WebhookConfig as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(view.required).toEqual(
      expect.arrayContaining(['signatureScheme', 'asymmetricSignatures', 'signingPublicKeys']),
    );
    expect(view.properties).toHaveProperty('standardSigningSecret');
    expect(view.required).not.toContain('standardSigningSecret');
    expect(openApiDocument.components.schemas.SignatureScheme).toMatchObject({
      enum: ['service', 'standard', 'both'],
    });
  });

  it('documents every error code of the table somewhere', () => {
    const text = JSON.stringify(openApiDocument);
    for (const code of Object.keys(apiErrorCodes)) expect(text).toContain(`"${code}"`);
  });

  it('describes the list query from the same schema the service validates with', () => {
    const parameters = openApiDocument.paths['/v1/agency/webhooks/deliveries']?.get?.parameters;
    expect(parameters).toEqual([
      expect.objectContaining({
        name: 'status',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: ['pending', 'success', 'failed'] },
      }),
      expect.objectContaining({
        name: 'eventType',
        in: 'query',
        required: false,
        schema: { type: 'string', maxLength: 100, pattern: '^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$' },
      }),
      expect.objectContaining({
        name: 'entityId',
        in: 'query',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 200 },
      }),
      ...['since', 'until'].map((name) =>
        expect.objectContaining({
          name,
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        }),
      ),
      expect.objectContaining({
        name: 'limit',
        in: 'query',
        required: false,
        schema: { default: 20, type: 'integer', minimum: 1, maximum: 100 },
      }),
      expect.objectContaining({ name: 'cursor', in: 'query', required: false }),
    ]);
  });

  it('compiles: every schema in it is valid JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(openApiDocument as object, 'openapi.json');
    for (const id of Object.keys(openApiDocument.components.schemas)) {
      expect(ajv.getSchema(`openapi.json#/components/schemas/${id}`)).toBeTypeOf('function');
    }
  });

  it('follows a custom base path', () => {
    const document = buildOpenApiDocument({
      basePath: '/api/hooks',
      servers: [{ url: 'https://api.example.com' }],
    });
    expect(Object.keys(document.paths)[0]).toBe('/api/hooks/config');
    expect(document.servers).toEqual([{ url: 'https://api.example.com' }]);
  });

  it('mounted at the root, has paths straight under it', () => {
    expect(Object.keys(buildOpenApiDocument({ basePath: '' }).paths)[0]).toBe('/config');
  });

  it.each(['api/hooks', '/api/hooks/', '/'])(
    'refuses the base path %j with InvalidOptionError',
    (basePath) => {
      expect(() => buildOpenApiDocument({ basePath })).toThrow(
        expect.objectContaining({
          code: 'invalid_option',
          option: 'basePath',
          message: expect.stringMatching(/^@svc\/webhooks-express: basePath must be/),
        }),
      );
    },
  );
});

describe('the response validator used by the router tests', () => {
  const validate = createDocumentValidator(openApiDocument);

  it('accepts a documented response', () => {
    const body = { error: { code: 'config_not_found', message: 'No configuration.' } };
    expect(validate({ method: 'GET', path: '/v1/agency/webhooks/config', status: 404, body })).toEqual([]);
  });

  it('flags a status the operation does not document', () => {
    const body = { error: { code: 'delivery_not_replayable', message: 'x' } };
    expect(validate({ method: 'GET', path: '/v1/agency/webhooks/config', status: 409, body })).toHaveLength(
      1,
    );
  });

  it('flags an error code not documented for that status', () => {
    const body = { error: { code: 'delivery_not_found', message: 'x' } };
    expect(validate({ method: 'GET', path: '/v1/agency/webhooks/config', status: 404, body })).toHaveLength(
      1,
    );
  });

  it('flags a body that breaks the schema (an extra field)', () => {
    const body = { signingSecret: 'abc', created: true };
    expect(
      validate({ method: 'POST', path: '/v1/agency/webhooks/config/rotate-secret', status: 200, body }),
    ).toHaveLength(1);
  });

  it('flags a success body with a field of the wrong type', () => {
    const body = { deliveries: [], nextCursor: 5 };
    expect(
      validate({ method: 'GET', path: '/v1/agency/webhooks/deliveries', status: 200, body }),
    ).toHaveLength(1);
  });
});

describe('the webhooks of the OpenAPI document', () => {
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema(openApiDocument as object, 'openapi.json');
  const published = [...builtInEvents, webhookTestEvent];

  function validatorOf(type: string) {
    const validate = ajv.getSchema(`openapi.json#/components/schemas/${pascal(type)}Event`);
    if (!validate) throw new Error(`no component for ${type}`);
    return validate;
  }

  it('has one signed POST per built-in event type and webhook_test, in catalogue order', () => {
    expect(Object.keys(openApiDocument.webhooks)).toEqual(published.map((definition) => definition.type));
    for (const [type, item] of Object.entries(openApiDocument.webhooks)) {
      expect(item.post).toMatchObject({
        tags: ['Events'],
        security: [{ webhookSignature: [] }, { standardWebhookSignature: [] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${pascal(type)}Event` } } },
        },
        responses: {
          '2XX': expect.any(Object),
          '401': expect.any(Object),
          '410': expect.any(Object),
          default: expect.any(Object),
        },
      });
    }
    expect(openApiDocument.components.securitySchemes.webhookSignature).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Service-Signature',
    });
    expect(openApiDocument.components.securitySchemes.standardWebhookSignature).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'webhook-signature',
    });
  });

  it.each(published.map((definition) => [definition.type, definition] as const))(
    '%s: the envelope schema accepts its example, and one sent at another time',
    (type, definition) => {
      const validate = validatorOf(type);
      const component = openApiDocument.components.schemas[`${pascal(type)}Event`] as { examples: unknown[] };
      expect(component.examples).toHaveLength(1);
      expect(validate(component.examples[0]), JSON.stringify(validate.errors)).toBe(true);
      const later = buildExampleEnvelope(definition, { webhookId: 'whdel_x', now: 1_800_000_000_000 });
      expect(validate(later)).toBe(true);
    },
  );

  it('refuses an envelope whose metadata lacks a field, or that claims another event type', () => {
    const validate = validatorOf('job_cancelled');
    const example = buildExampleEnvelope(builtInEvents[2]);
    const { reason: _reason, ...metadata } = example.metadata;
    expect(validate({ ...example, metadata })).toBe(false);
    expect(validate({ ...example, eventType: 'job_created' })).toBe(false);
  });

  it('documents a host’s own event types when given its catalogue', () => {
    const events = createEventCatalogue([
      defineEvent({
        type: 'job_fulfilment_started',
        entityType: 'job',
        metadata: z.strictObject({ startedAt: z.number() }),
      }),
    ]);
    const document = buildOpenApiDocument({ events });
    expect(Object.keys(document.webhooks)).toContain('job_fulfilment_started');
    expect(document.components.schemas.JobFulfilmentStartedEvent).toMatchObject({
      title: 'job_fulfilment_started',
      properties: { metadata: { properties: { startedAt: { type: 'number' } } } },
    });
  });
});
