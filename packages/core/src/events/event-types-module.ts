import { z } from 'zod';
import { WebhookError } from '../errors';
import type { EventCatalogue } from './event-catalogue';
import { webhookTestEvent } from './test-event';

/** Options of {@link buildEventTypesModule}. */
export interface EventTypesModuleOptions {
  /**
   * Name of the exported map from event type to metadata type.
   * @default 'WebhookEventMap'
   */
  mapName?: string;
}

type JsonSchema = { [keyword: string]: unknown };

const DEFS_PREFIX = '#/$defs/';
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * TypeScript source of a types-only module for receivers: one metadata type per event type of the
 * catalogue (and `webhook_test`), the object types they share, and a map from event type to metadata
 * type to pass to `verifyWebhook<…>()` of `@svc/webhooks-verify`. Generated from the zod schemas through
 * JSON Schema, so it describes what the service sends. Plain text, no I/O: write it where your receivers
 * can import it. `@svc/webhooks-verify` ships the module of the built-in catalogue.
 *
 * @throws `WebhookError` with code `invalid_event_definition` when two different schemas would get
 * the same type name
 * @example
 * ```ts
 * writeFileSync('src/webhook-events.ts', buildEventTypesModule(events, { mapName: 'AcmeWebhookEvents' }));
 * ```
 */
export function buildEventTypesModule(
  catalogue: EventCatalogue,
  options: EventTypesModuleOptions = {},
): string {
  const definitions = [...catalogue.definitions, webhookTestEvent];
  const converted = z.toJSONSchema(
    z.object(Object.fromEntries(definitions.map((definition) => [definition.type, definition.metadata]))),
    { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' },
  ) as JsonSchema;
  const properties = converted.properties as Record<string, JsonSchema>;
  const defs = (converted.$defs ?? {}) as Record<string, JsonSchema>;
  const blocks: string[] = [];
  const mapLines: string[] = [];
  const names = new Set(Object.keys(defs));
  // Each event's metadata type, then the named object types it uses that are not written yet.
  const written = new Set<string>();
  for (const definition of definitions) {
    const schema = properties[definition.type] ?? {};
    const root = refName(schema);
    const name = root ?? claimName(names, `${pascalCase(definition.type)}Metadata`, definition.type);
    const summary = `Metadata of \`${definition.type}\`.`;
    if (root === null) blocks.push(typeAlias(name, summary, schema));
    else if (!written.has(root)) blocks.push(typeAlias(root, summary, defs[root] ?? {}));
    written.add(name);
    for (const used of referencedDefs(root === null ? schema : (defs[root] ?? {}), defs)) {
      if (written.has(used)) continue;
      written.add(used);
      blocks.push(typeAlias(used, `The \`${used}\` object of the metadata.`, defs[used] ?? {}));
    }
    mapLines.push(`${docComment(definition.description, '  ')}  ${propertyKey(definition.type)}: ${name};`);
  }
  const mapName = options.mapName ?? 'WebhookEventMap';
  const map = [
    '/**',
    ' * The metadata type of each event type, keyed by `eventType`. Pass it to `verifyWebhook<…>()` so that',
    ' * checking `eventType` narrows `metadata`.',
    ' */',
    `export type ${mapName} = {`,
    ...mapLines,
    '};',
  ].join('\n');
  return `${[HEADER, map, ...blocks].join('\n\n')}\n`;
}

const HEADER = [
  '/*',
  ' * Metadata types of webhook events, generated from an event catalogue by buildEventTypesModule()',
  ' * of @svc/webhooks-core. Do not edit by hand: generate it again when the catalogue changes.',
  ' */',
].join('\n');

/** The `$defs` names a schema refers to, directly or through other `$defs`, in order of first use. */
function referencedDefs(
  schema: unknown,
  defs: Record<string, JsonSchema>,
  found = new Set<string>(),
): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) referencedDefs(item, defs, found);
  } else if (schema !== null && typeof schema === 'object') {
    const name = refName(schema as JsonSchema);
    if (name !== null && !found.has(name)) {
      found.add(name);
      referencedDefs(defs[name], defs, found);
    }
    for (const value of Object.values(schema)) referencedDefs(value, defs, found);
  }
  return found;
}

function refName(schema: JsonSchema): string | null {
  const ref = schema.$ref;
  return typeof ref === 'string' && ref.startsWith(DEFS_PREFIX) ? ref.slice(DEFS_PREFIX.length) : null;
}

function claimName(names: Set<string>, name: string, eventType: string): string {
  if (names.has(name)) {
    throw new WebhookError(
      'invalid_event_definition',
      `The metadata type of "${eventType}" would be named ${name}, a name another schema already has (a zod .meta({ id })). Give one of them another id.`,
    );
  }
  names.add(name);
  return name;
}

function typeAlias(name: string, summary: string, schema: JsonSchema): string {
  const description = typeof schema.description === 'string' ? `${summary} ${schema.description}` : summary;
  return `${docComment(description, '')}export type ${name} = ${renderType(schema, '')};`;
}

function docComment(text: string | undefined, indent: string): string {
  if (text === undefined || text === '') return '';
  return `${indent}/** ${text.replaceAll('*/', '*\\/')} */\n`;
}

/** `job_fulfilment_started` → `JobFulfilmentStarted`. */
export function pascalCase(snake: string): string {
  return snake
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join('');
}

/** The TypeScript type of a JSON Schema, for the subset zod writes. */
export function renderType(schema: JsonSchema | boolean, indent: string): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  const name = refName(schema);
  if (name !== null) return name;
  if (Array.isArray(schema.anyOf)) return union(schema.anyOf as JsonSchema[], indent);
  if (Array.isArray(schema.oneOf)) return union(schema.oneOf as JsonSchema[], indent);
  if (Array.isArray(schema.allOf)) {
    return (schema.allOf as JsonSchema[]).map((part) => renderType(part, indent)).join(' & ');
  }
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  if (Array.isArray(schema.type)) {
    return (schema.type as string[]).map((type) => renderType({ ...schema, type }, indent)).join(' | ');
  }
  return renderByType(schema, indent);
}

function renderByType(schema: JsonSchema, indent: string): string {
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return renderArray(schema, indent);
    case 'object':
      return renderObject(schema, indent);
    default:
      return schema.properties === undefined ? 'unknown' : renderObject(schema, indent);
  }
}

function union(members: JsonSchema[], indent: string): string {
  return members.map((member) => renderType(member, indent)).join(' | ');
}

function renderArray(schema: JsonSchema, indent: string): string {
  if (Array.isArray(schema.prefixItems)) {
    return `[${(schema.prefixItems as JsonSchema[]).map((item) => renderType(item, indent)).join(', ')}]`;
  }
  const item = renderType((schema.items as JsonSchema | undefined) ?? true, indent);
  return /^[\w$.]+$/.test(item) ? `${item}[]` : `(${item})[]`;
}

function renderObject(schema: JsonSchema, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const extra = schema.additionalProperties as JsonSchema | boolean | undefined;
  const inner = `${indent}  `;
  const members = Object.entries(properties).map(([key, property]) => {
    const optional = required.has(key) ? '' : '?';
    const description = typeof property.description === 'string' ? property.description : undefined;
    return `${docComment(description, inner)}${inner}${propertyKey(key)}${optional}: ${renderType(property, inner)};`;
  });
  if (members.length === 0) {
    return extra === false
      ? 'Record<string, never>'
      : `{ [key: string]: ${renderType(extra ?? true, indent)} }`;
  }
  // Declared properties plus open extra keys: the index signature must admit every property's type.
  if (extra !== undefined && extra !== false) members.push(`${inner}[key: string]: unknown;`);
  return `{\n${members.join('\n')}\n${indent}}`;
}

function propertyKey(key: string): string {
  return IDENTIFIER.test(key) ? key : quote(key);
}

function literal(value: unknown): string {
  return typeof value === 'string' ? quote(value) : JSON.stringify(value);
}

function quote(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
