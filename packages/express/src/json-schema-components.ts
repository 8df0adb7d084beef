import { WebhookError } from '@svc/webhooks-core';
import { PACKAGE_NAME } from './errors';
import type { JsonSchemaSource } from './route-contract';

/** A JSON Schema object as the OpenAPI document holds it. */
export type JsonSchema = { [keyword: string]: unknown };

/** A schema converted for the document: what to put where it is used, and the components it needs. */
export interface ConvertedSchema {
  /** A `$ref` into `#/components/schemas` for schemas with an id, else the schema inline. */
  schema: JsonSchema;
  /** Component schemas by id (the zod `.meta({ id })` of the schema and of the schemas it contains). */
  components: Record<string, JsonSchema>;
}

const COMPONENTS_PREFIX = '#/components/schemas/';
const DEFS_PREFIX = '#/$defs/';

/**
 * Converts a zod schema to JSON Schema 2020-12 (the dialect of OpenAPI 3.1) and
 * moves every schema that has an id into components. zod writes such schemas to
 * `$defs` and points at them with `#/$defs/<id>`; the document wants them once,
 * under `#/components/schemas/<id>`, shared by every operation.
 */
export function convertSchema(source: JsonSchemaSource, io: 'input' | 'output'): ConvertedSchema {
  const generated = rewriteRefs(source.toJSONSchema({ target: 'draft-2020-12', io })) as JsonSchema;
  const { $schema: _dialect, $defs, ...schema } = generated;
  return { schema, components: { ...($defs as Record<string, JsonSchema> | undefined) } };
}

/**
 * Adds `incoming` components to `target`. An id that arrives twice must mean the
 * same schema (it does for output schemas; an input and an output variant of one
 * id would differ, and the document would then be ambiguous). Only a core whose
 * schemas this version of the package does not know can break that, so the
 * error says to align the versions.
 */
export function mergeComponents(
  target: Record<string, JsonSchema>,
  incoming: Record<string, JsonSchema>,
): void {
  for (const [id, schema] of Object.entries(incoming)) {
    const existing = target[id];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new WebhookError(
        'openapi_component_conflict',
        `${PACKAGE_NAME}: two different schemas share the OpenAPI component id "${id}". Install the same version of @svc/webhooks-core and @svc/webhooks-express.`,
        { details: { id } },
      );
    }
    target[id] = schema;
  }
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  const result: JsonSchema = {};
  for (const [key, child] of Object.entries(value)) {
    result[key] =
      key === '$ref' && typeof child === 'string' && child.startsWith(DEFS_PREFIX)
        ? COMPONENTS_PREFIX + child.slice(DEFS_PREFIX.length)
        : rewriteRefs(child);
  }
  return result;
}
