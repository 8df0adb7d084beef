import type { JsonSchemaNode } from './api-client';

/** One field of a delivery body as the event catalogue lists it. */
export interface SchemaField {
  /** Dotted from the body's top level: `metadata.jobId`. */
  path: string;
  /** The type in words a developer reads: `string`, `integer`, `"job_created"`, `string | null`, `object`. */
  type: string;
  required: boolean;
  description: string | null;
}

/** Nested objects deeper than this are listed as `object` without their fields. */
const MAX_DEPTH = 4;

/**
 * The fields of a JSON Schema document (as `GET /event-types/schemas` gives it), depth first: each
 * property with its type, whether it is required and its description; the properties of a nested object
 * follow it. `$ref`s into the document's `$defs` are followed.
 */
export function schemaFields(document: JsonSchemaNode): SchemaField[] {
  const defs = (document.$defs ?? {}) as Record<string, JsonSchemaNode>;
  const fields: SchemaField[] = [];
  const walk = (node: JsonSchemaNode, prefix: string, depth: number): void => {
    const resolved = resolve(node, defs);
    const properties = resolved.properties as Record<string, JsonSchemaNode> | undefined;
    if (properties === undefined) return;
    const required = new Set(Array.isArray(resolved.required) ? (resolved.required as string[]) : []);
    for (const [name, child] of Object.entries(properties)) {
      const path = prefix === '' ? name : `${prefix}.${name}`;
      const target = resolve(child, defs);
      fields.push({
        path,
        type: typeOf(target, defs),
        required: required.has(name),
        description:
          typeof child.description === 'string'
            ? child.description
            : typeof target.description === 'string'
              ? target.description
              : null,
      });
      if (depth < MAX_DEPTH) walk(target, path, depth + 1);
    }
  };
  walk(document, '', 0);
  return fields;
}

function resolve(node: JsonSchemaNode, defs: Record<string, JsonSchemaNode>): JsonSchemaNode {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return node;
  return defs[ref.slice('#/$defs/'.length)] ?? node;
}

function typeOf(node: JsonSchemaNode, defs: Record<string, JsonSchemaNode>): string {
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (Array.isArray(node.enum)) return node.enum.map((value) => JSON.stringify(value)).join(' | ');
  const union = (node.anyOf ?? node.oneOf) as JsonSchemaNode[] | undefined;
  if (Array.isArray(union)) return union.map((member) => typeOf(resolve(member, defs), defs)).join(' | ');
  if (Array.isArray(node.type)) return node.type.join(' | ');
  if (node.type === 'array') {
    const items = node.items as JsonSchemaNode | undefined;
    return items === undefined ? 'array' : `array of ${typeOf(resolve(items, defs), defs)}`;
  }
  if (typeof node.type === 'string') return node.type;
  return 'any';
}
