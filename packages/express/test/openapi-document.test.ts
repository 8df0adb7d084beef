import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
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
  it('describes exactly the routes the router mounts: the spec’s seven endpoints', () => {
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

  it('takes its components from the zod schemas’ ids', () => {
    expect(Object.keys(openApiDocument.components.schemas).sort()).toEqual(
      [
        'DeliveryDetail',
        'DeliveryList',
        'DeliverySummary',
        'PutConfigBody',
        'ReplayResult',
        'RotatedSecret',
        'TestResult',
        'WebhookConfig',
        'WebhookApiErrorBody',
      ].sort(),
    );
    expect(JSON.stringify(openApiDocument)).not.toContain('$defs');
  });

  it.each(operations())('%s lists 401, 403 and 500 with the error schema', (_name, operation) => {
    for (const status of ['401', '403', '500']) {
      const schema = JSON.stringify(operation.responses[status]?.content?.['application/json']?.schema);
      expect(schema).toContain('#/components/schemas/WebhookApiErrorBody');
    }
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
