import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEventCatalogue, type EventDefinition, webhookTestEvent } from '@svc/webhooks-core';
import { buildEventJsonSchema, buildEventTypesModule } from '@svc/webhooks-core/schemas';
import { openApiDocument } from '@svc/webhooks-express';

/*
 * The event contract's generated files, rendered from the built-in catalogue: the events reference page,
 * the types-only module @svc/webhooks-verify ships, and the OpenAPI document (paths and webhooks). Text
 * files go through Biome, so what is committed is exactly what `pnpm lint` accepts.
 * `pnpm events:generate` writes them; `pnpm events:check` and event-contract.test.ts fail while a
 * committed copy differs.
 */

/** The repository root, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One generated file: its path from the repository root and its contents. */
export interface ContractFile {
  path: string;
  contents: string;
}

const GENERATED_NOTE = 'Generated from the built-in event catalogue by `pnpm events:generate`; do not edit.';

/** Every generated file of the event contract, as it must be committed. */
export function eventContractFiles(): ContractFile[] {
  const catalogue = createEventCatalogue();
  return [
    {
      path: 'packages/verify/src/built-in-events.ts',
      contents: formatted(
        'packages/verify/src/built-in-events.ts',
        `// ${GENERATED_NOTE}\n${buildEventTypesModule(catalogue)}`,
      ),
    },
    {
      path: 'docs/events-reference.md',
      contents: formatted(
        'docs/events-reference.md',
        eventsReference([...catalogue.definitions, webhookTestEvent]),
      ),
    },
    { path: 'docs/openapi.json', contents: `${JSON.stringify(openApiDocument, null, 2)}\n` },
  ];
}

/** The generated files whose committed copy differs from what the catalogue gives now. */
export function staleContractFiles(): string[] {
  return eventContractFiles()
    .filter((file) => readCommitted(file.path) !== file.contents)
    .map((file) => file.path);
}

function readCommitted(path: string): string | null {
  try {
    return readFileSync(ROOT + path, 'utf8');
  } catch {
    return null;
  }
}

/** Biome's formatting of `text` as the file at `path` (so its own settings for that path apply). */
function formatted(path: string, text: string): string {
  return execFileSync(`${ROOT}node_modules/.bin/biome`, ['format', `--stdin-file-path=${path}`], {
    cwd: ROOT,
    input: text,
    encoding: 'utf8',
  });
}

type JsonSchema = { [keyword: string]: unknown };

function eventsReference(definitions: readonly EventDefinition[]): string {
  const index = definitions.map(
    (definition) =>
      `| [\`${definition.type}\`](#${definition.type}) | ${definition.entityType ? `\`${definition.entityType}\`` : 'any'} | ${cell(definition.description ?? '')} |`,
  );
  return [
    '# Events reference',
    '',
    `<!-- ${GENERATED_NOTE} -->`,
    '',
    'Every event type the service sends with its built-in catalogue, and `webhook_test` from the test endpoint:',
    'the shape of its `metadata` and an example delivery body. [Events](events.md) explains the envelope and how',
    'a host adds its own types; [Receiving webhooks](receiving-webhooks.md) shows how to verify a delivery and',
    'get these types in TypeScript.',
    '',
    '- **JSON Schema** of each event type’s envelope: `npx svc-webhooks schema <eventType>`, or',
    '  `buildEventJsonSchema(definition)` of `@svc/webhooks-core/schemas`. The same schemas are the `webhooks`',
    '  of the OpenAPI document, [openapi.json](openapi.json).',
    '- **TypeScript**: `verifyWebhook` of `@svc/webhooks-verify` returns a union over these types, so checking',
    '  `eventType` narrows `metadata` (the map is `WebhookEventMap`).',
    '- **Try one**: `npx svc-webhooks trigger <eventType> --url <your receiver> --secret <secret>` sends its',
    '  example, signed.',
    '',
    'Every field of a known shape is always present; a field that does not apply is `null`. The example ids',
    'are made up.',
    '',
    '| event type | entity type | what happened |',
    '| --- | --- | --- |',
    ...index,
    '',
    ...definitions.flatMap(eventSection),
  ].join('\n');
}

function eventSection(definition: EventDefinition): string[] {
  const schema = buildEventJsonSchema(definition);
  const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  const metadata = resolve((schema.properties as Record<string, JsonSchema>).metadata ?? {}, defs);
  const example = (schema.examples as unknown[] | undefined)?.[0];
  return [
    `## \`${definition.type}\``,
    '',
    definition.description ?? '',
    '',
    `Entity type: ${definition.entityType ? `\`${definition.entityType}\`` : 'given by each event'}.`,
    '',
    ...metadataTable(metadata, defs),
    ...(example === undefined
      ? []
      : ['Example body:', '', '```json', JSON.stringify(example, null, 2), '```', '']),
  ];
}

function metadataTable(metadata: JsonSchema, defs: Record<string, JsonSchema>): string[] {
  const rows = fieldRows(metadata, defs, '');
  const notes = typeof metadata.description === 'string' ? [metadata.description, ''] : [];
  if (rows.length === 0) {
    return [
      '`metadata`: any JSON object. The spec fixes no shape for this event type; a host that gives it a schema',
      'with `defineEvent` documents its own.',
      '',
    ];
  }
  return ['| `metadata` field | type | notes |', '| --- | --- | --- |', ...rows, '', ...notes];
}

/** One row per field, nested objects' fields as `parent.child`. */
function fieldRows(schema: JsonSchema, defs: Record<string, JsonSchema>, prefix: string): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).flatMap(([name, property]) => {
    const resolved = resolve(property, defs);
    const notes = typeof resolved.description === 'string' ? resolved.description : '';
    const row = `| \`${prefix}${name}\` | ${cell(typeText(resolved, defs))} | ${cell(notes)} |`;
    return resolved.properties === undefined
      ? [row]
      : [row, ...fieldRows(resolved, defs, `${prefix}${name}.`)];
  });
}

function resolve(schema: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const ref = schema.$ref;
  return typeof ref === 'string'
    ? { ...(defs[ref.replace('#/$defs/', '')] ?? {}), ...schema, $ref: undefined }
    : schema;
}

/** A field's type in the words of the spec's tables: `string or null`, `object`, `any value`. */
function typeText(schema: JsonSchema, defs: Record<string, JsonSchema>): string {
  const resolved = resolve(schema, defs);
  if (Array.isArray(resolved.anyOf)) {
    return (resolved.anyOf as JsonSchema[]).map((member) => typeText(member, defs)).join(' or ');
  }
  if (Array.isArray(resolved.enum)) return resolved.enum.map((value) => `\`${String(value)}\``).join(', ');
  if ('const' in resolved) return `\`${String(resolved.const)}\``;
  if (Array.isArray(resolved.type)) return resolved.type.join(' or ');
  if (resolved.type === 'array') return `array of ${typeText((resolved.items as JsonSchema) ?? {}, defs)}`;
  if (typeof resolved.type === 'string') return resolved.type;
  return 'any value, present (null when it does not apply)';
}

/** Text safe inside a table cell. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
