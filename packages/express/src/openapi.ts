import {
  createEventCatalogue,
  type EventCatalogue,
  type EventDefinition,
  InvalidOptionError,
  webhookTestEvent,
} from '@svc/webhooks-core';
import { buildEventJsonSchema } from '@svc/webhooks-core/schemas';
import { apiErrorCodes, codesWithStatus, PACKAGE_NAME, type WebhookApiErrorCode } from './errors';
import {
  type ConvertedSchema,
  convertSchema,
  type JsonSchema,
  mergeComponents,
} from './json-schema-components';
import { type ApiRoute, commonErrorCodes, type RouteResponse } from './route-contract';
import { apiRoutes } from './routes';

/** An OpenAPI 3.1 document (the parts this package writes). */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers?: { url: string; description?: string }[];
  security: Record<string, string[]>[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, JsonSchema>>;
  /** The deliveries the service sends to an agency's webhook URL: one `post` per event type. */
  webhooks: Record<string, Record<string, JsonSchema>>;
  components: {
    securitySchemes: Record<string, JsonSchema>;
    schemas: Record<string, JsonSchema>;
    responses: Record<string, JsonSchema>;
  };
}

/** Options of {@link buildOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  /**
   * Where the host mounts the router: `''` (the root) or a path that starts with
   * `/` and does not end with one.
   * @default '/v1/agency/webhooks'
   */
  basePath?: string;
  /**
   * `servers` of the document, such as `[{ url: 'https://api.example.com' }]`.
   * @default none (paths are relative to wherever the document is served from)
   */
  servers?: { url: string; description?: string }[];
  /**
   * The event catalogue whose event types the `webhooks` section describes (`webhook_test` is always
   * added): pass the service's own when the host defines event types.
   * @default createEventCatalogue() (the built-in event types)
   */
  events?: EventCatalogue;
}

/** The mount path the spec gives the management API. */
export const WEBHOOK_API_BASE_PATH = '/v1/agency/webhooks';

const ERROR_SCHEMA_ID = 'WebhookApiErrorBody';
const SECURITY_SCHEME = 'agentToken';
const SIGNATURE_SCHEME = 'webhookSignature';
const STANDARD_SIGNATURE_SCHEME = 'standardWebhookSignature';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};

/** What every 429 and 503 carries: the error handler sets it from `details.retryAfterMs`. */
const RETRY_AFTER_HEADER: Record<string, JsonSchema> = {
  'Retry-After': {
    description:
      'Seconds to wait before asking again: whole seconds, at least 1 (`details.retryAfterMs`, rounded up).',
    schema: { type: 'integer', minimum: 1 },
  },
};

/**
 * Builds the OpenAPI 3.1 document of the management API from the same route
 * table the router mounts and the same zod schemas the service validates with.
 * A plain object, computed without I/O; {@link openApiDocument} is the one for
 * the default mount path.
 *
 * @throws {InvalidOptionError} when `basePath` is not `''` and does not start with `/`, or ends with `/`
 *
 * @example
 * ```ts
 * app.get('/openapi.json', (_req, res) => {
 *   res.json(buildOpenApiDocument({ servers: [{ url: 'https://api.example.com' }] }));
 * });
 * ```
 */
export function buildOpenApiDocument(options: OpenApiDocumentOptions = {}): OpenApiDocument {
  const basePath = checkedBasePath(options.basePath ?? WEBHOOK_API_BASE_PATH);
  const schemas: Record<string, JsonSchema> = { [ERROR_SCHEMA_ID]: errorBodySchema() };
  const use = (converted: ConvertedSchema): JsonSchema => {
    mergeComponents(schemas, converted.components);
    return converted.schema;
  };
  const paths: OpenApiDocument['paths'] = {};
  for (const route of apiRoutes) {
    const path = basePath + toOpenApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: describeOperation(route, use) };
  }
  const webhooks: OpenApiDocument['webhooks'] = {};
  for (const definition of [...(options.events ?? createEventCatalogue()).definitions, webhookTestEvent]) {
    webhooks[definition.type] = { post: describeWebhook(definition, schemas) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agency webhooks management API',
      version: '1.0.0',
      description: documentDescription(),
    },
    ...(options.servers ? { servers: options.servers } : {}),
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: [
      { name: 'Configuration', description: 'The agency’s one webhook configuration.' },
      { name: 'Deliveries', description: 'The delivery log, each delivery’s attempts, and replay.' },
      {
        name: 'Events',
        description: 'Deliveries the service sends to the agency’s webhook URL, one kind per event type.',
      },
    ],
    paths,
    webhooks,
    components: {
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'apiKey',
          in: 'header',
          name: 'authorization',
          description:
            'An agent token, raw or as `Bearer <token>`. The agent’s agency must be active and its role `owner` or `admin`.',
        },
        [SIGNATURE_SCHEME]: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Signature',
          description:
            '`t=<epoch ms>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the agency’s signing secret. Verify it on the raw body (`verifyWebhook` of `@svc/webhooks-verify`) and answer 401 when it does not match.',
        },
        [STANDARD_SIGNATURE_SCHEME]: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description:
            'Standard Webhooks, under the `standard` and `both` schemes: space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` (keyed with the UTF-8 bytes of the signing secret, `standardSigningSecret` in `whsec_` form) and, with asymmetric signatures, `v1a,<base64 Ed25519>` entries (keys at `GET /public-keys/{agencyId}`). `webhook-timestamp` is in seconds. Verify with `verifyWebhook(rawBody, headers, secret)` of `@svc/webhooks-verify` or any Standard Webhooks library.',
        },
      },
      schemas,
      responses: {
        NotFound: errorResponse(404, ['not_found']),
        MethodNotAllowed: {
          ...errorResponse(405, ['method_not_allowed']),
          headers: { Allow: { description: 'The methods the path accepts.', schema: { type: 'string' } } },
        },
      },
    },
  };
}

/**
 * The document for the default mount path, as `docs/openapi.json` holds it.
 * Serve it, or feed it to a client generator.
 */
export const openApiDocument: OpenApiDocument = buildOpenApiDocument();

/** OpenAPI paths start with `/`; a trailing one would give `//config`. */
function checkedBasePath(basePath: string): string {
  if (typeof basePath === 'string' && (basePath === '' || /^\/.*[^/]$/.test(basePath))) return basePath;
  throw new InvalidOptionError(
    PACKAGE_NAME,
    'basePath',
    `basePath must be '' or a path that starts with "/" and does not end with one, such as '/v1/agency/webhooks'; got ${JSON.stringify(basePath)}.`,
  );
}

/** `/deliveries/:id` → `/deliveries/{id}`. */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function describeOperation(route: ApiRoute, use: (converted: ConvertedSchema) => JsonSchema): JsonSchema {
  const parameters = [...pathParameters(route), ...queryParameters(route, use)];
  const responses: Record<string, JsonSchema> = {};
  for (const response of route.responses) {
    responses[String(response.status)] = {
      description: response.description,
      ...responseHeaders(response),
      content: { 'application/json': { schema: use(convertSchema(response.schema, 'output')) } },
    };
  }
  for (const [status, codes] of errorCodesByStatus([...route.errors, ...commonErrorCodes(route)])) {
    responses[String(status)] = errorResponse(status, codes);
  }
  return {
    operationId: route.operationId,
    tags: [operationTag(route)],
    // An empty list overrides the document's `security`: the operation needs no token.
    ...(route.access === 'public' ? { security: [] } : {}),
    summary: route.summary,
    description: route.description,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: route.bodyOptional !== true,
            content: { 'application/json': { schema: use(convertSchema(route.body, 'input')) } },
          },
        }
      : {}),
    responses,
  };
}

function operationTag(route: ApiRoute): string {
  return route.path.startsWith('/config') || route.path.startsWith('/public-keys')
    ? 'Configuration'
    : 'Deliveries';
}

/** The fixed headers of a response, each as a `const` string. */
function responseHeaders(response: RouteResponse): { headers?: Record<string, JsonSchema> } {
  if (response.headers === undefined) return {};
  const headers: Record<string, JsonSchema> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    headers[name] = { description: `Always \`${value}\`.`, schema: { type: 'string', const: value } };
  }
  return { headers };
}

/**
 * One event type's delivery, as an OpenAPI webhook: the envelope (from the event's zod schemas, with its
 * example) as a component named after the event type, the headers every delivery carries, and what the
 * receiver's answers mean to the service.
 */
function describeWebhook(definition: EventDefinition, schemas: Record<string, JsonSchema>): JsonSchema {
  const name = `${pascalCase(definition.type)}Event`;
  const converted = convertSchema({ toJSONSchema: () => buildEventJsonSchema(definition) }, 'output');
  mergeComponents(schemas, { ...converted.components, [name]: converted.schema });
  return {
    operationId: `${pascalCase(definition.type).replace(/^./, (first) => first.toLowerCase())}Webhook`,
    tags: ['Events'],
    summary: `\`${definition.type}\``,
    description: definition.description ?? `A \`${definition.type}\` event.`,
    // Either family, by the agency's `signatureScheme` (`both` sends the two).
    security: [{ [SIGNATURE_SCHEME]: [] }, { [STANDARD_SIGNATURE_SCHEME]: [] }],
    parameters: [
      {
        name: 'X-Service-Webhook-Id',
        in: 'header',
        required: true,
        description: 'The envelope’s `webhookId`, to deduplicate before parsing the body.',
        schema: { type: 'string' },
      },
      {
        name: 'X-Service-Event-Type',
        in: 'header',
        required: true,
        description: 'The envelope’s `eventType`, to route before parsing the body.',
        schema: { type: 'string', const: definition.type },
      },
    ],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
    },
    responses: {
      '2XX': { description: 'Delivered: the delivery becomes `success`. Answer quickly, work afterwards.' },
      '401': {
        description: 'The signature did not verify (or is missing). A failed attempt, like any non-2xx.',
      },
      '410': {
        description:
          'Under the `standard` and `both` schemes, the receiver is gone for good: the attempt fails and the configuration is disabled (`disabledReason: receiver_gone`) until a PUT enables it again. Under `service`, a failed attempt like any non-2xx.',
      },
      default: {
        description:
          'Any other status, a redirect (never followed) or no answer within the attempt timeout is a failed attempt: the delivery is retried on its schedule. A test event is never retried.',
      },
    },
  };
}

/** `job_fulfilment_started` → `JobFulfilmentStarted`. */
function pascalCase(snake: string): string {
  return snake
    .split('_')
    .map((word) => (word[0] ?? '').toUpperCase() + word.slice(1))
    .join('');
}

function pathParameters(route: ApiRoute): JsonSchema[] {
  return [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map(([, name = '']) => ({
    name,
    in: 'path',
    required: true,
    ...describedAs(route.parameterDescriptions?.[name]),
    schema: { type: 'string' },
  }));
}

function describedAs(description: unknown): { description?: string } {
  return typeof description === 'string' ? { description } : {};
}

function queryParameters(route: ApiRoute, use: (converted: ConvertedSchema) => JsonSchema): JsonSchema[] {
  if (!route.query) return [];
  const schema = use(convertSchema(route.query, 'input'));
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...describedAs(route.parameterDescriptions?.[name] ?? description),
      schema: rest,
    };
  });
}

/** Groups codes by their status, statuses ascending. */
function errorCodesByStatus(codes: readonly WebhookApiErrorCode[]): Map<number, WebhookApiErrorCode[]> {
  const byStatus = new Map<number, WebhookApiErrorCode[]>();
  const statuses = [...new Set(codes.map((code) => apiErrorCodes[code].status))].sort((a, b) => a - b);
  for (const status of statuses) {
    byStatus.set(
      status,
      codesWithStatus(status).filter((code) => codes.includes(code)),
    );
  }
  return byStatus;
}

/** An error response whose `code` is narrowed to the codes this status can carry here. */
function errorResponse(status: number, codes: readonly WebhookApiErrorCode[]): JsonSchema {
  const lines = codes.map((code) => `- \`${code}\`: ${apiErrorCodes[code].summary}`);
  return {
    description: `${STATUS_TEXT[status] ?? 'Error'}.\n\n${lines.join('\n')}`,
    ...(status === 429 || status === 503 ? { headers: RETRY_AFTER_HEADER } : {}),
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: `#/components/schemas/${ERROR_SCHEMA_ID}` },
            {
              type: 'object',
              properties: { error: { type: 'object', properties: { code: { enum: codes } } } },
            },
          ],
        },
      },
    },
  };
}

function errorBodySchema(): JsonSchema {
  return {
    type: 'object',
    description: 'Body of every error answer.',
    properties: {
      error: {
        type: 'object',
        properties: {
          code: {
            type: 'string',
            enum: Object.keys(apiErrorCodes),
            description: 'Stable snake_case code.',
          },
          message: { type: 'string', description: 'What went wrong and, where possible, what to do next.' },
          details: {
            description:
              'Data to act on: `issues` (`[{ path, message }]`) for `validation_failed`, `reason` for `invalid_webhook_url`, ids otherwise.',
          },
        },
        required: ['code', 'message'],
        additionalProperties: false,
      },
    },
    required: ['error'],
    additionalProperties: false,
  };
}

function documentDescription(): string {
  return [
    'Manage an agency’s webhook configuration and its delivery log.',
    '',
    'Every endpoint needs an agent token in the `authorization` header (raw or `Bearer <token>`); the agent’s agency must be active and its role `owner` or `admin`. Everything is scoped to that agency. The one exception is `GET /public-keys/{agencyId}`: the agency’s public signing keys, served to anyone without a token.',
    '',
    'A host may sign agents in with its session cookie instead (cookie mode). A browser attaches a cookie to requests other pages make, so every change (a POST or PUT) must then show it comes from the host’s own pages: `Sec-Fetch-Site: same-origin`, an `Origin` of the host (or one it trusts), or an `X-Webhooks-Client` header (any value), or it is refused with 403 `untrusted_origin`; and it must be sent as `Content-Type: application/json`, also without a body, or it is refused with 415 `unsupported_media_type`.',
    '',
    'Every error is `{ "error": { "code", "message", "details"? } }`. An unknown path under the base path answers 404 `not_found`; a known path with another method answers 405 `method_not_allowed` with an `Allow` header.',
    '',
    'The `webhooks` describe what the service sends to the agency’s webhook URL: one signed JSON envelope per event, with `X-Service-Signature`, `X-Service-Webhook-Id` and `X-Service-Event-Type` headers (the `service` signature scheme, the default). Under the `standard` scheme the signature headers are Standard Webhooks’ `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`, then `v1a,<base64 Ed25519>` entries when asymmetric signatures are on) instead of `X-Service-Signature`; under `both`, all of them.',
  ].join('\n');
}
