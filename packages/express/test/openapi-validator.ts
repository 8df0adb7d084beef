import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { OpenApiDocument } from '../src/index';
import type { RecordedResponse } from './router-harness';

const DOCUMENT_ID = 'openapi.json';

/** Escapes one JSON-pointer segment for use inside a URI fragment. */
function pointerSegment(segment: string): string {
  return encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));
}

function pointer(...segments: string[]): string {
  return `${DOCUMENT_ID}#/${segments.map(pointerSegment).join('/')}`;
}

function templateRegex(template: string): RegExp {
  const pattern = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${pattern}/?$`);
}

/**
 * Checks recorded responses against the OpenAPI document itself (not against
 * the zod schemas it came from): the status must be documented for the
 * operation, and the body must validate against the documented JSON Schema.
 */
export function createDocumentValidator(document: OpenApiDocument): (response: RecordedResponse) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(document as object, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();
  // Literal paths before templated ones, as the router matches: `/deliveries/recover` is not `/deliveries/{id}`.
  const templates = Object.keys(document.paths)
    .map((template) => ({ template, regex: templateRegex(template) }))
    .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));

  const schemaRefFor = (response: RecordedResponse): string | string[] => {
    const match = templates.find(({ regex }) => regex.test(response.path));
    if (!match) {
      return response.status === 404
        ? pointer('components', 'responses', 'NotFound', 'content', 'application/json', 'schema')
        : [`${response.path} is not in the document and answered ${response.status}, not 404`];
    }
    const method = response.method === 'HEAD' ? 'get' : response.method.toLowerCase();
    const operation = document.paths[match.template]?.[method] as
      | { responses?: Record<string, unknown> }
      | undefined;
    if (!operation) {
      return response.status === 405
        ? pointer('components', 'responses', 'MethodNotAllowed', 'content', 'application/json', 'schema')
        : [`${response.method} ${match.template} is not documented and answered ${response.status}, not 405`];
    }
    if (!operation.responses?.[String(response.status)]) {
      return [
        `${response.method} ${match.template} answered ${response.status}, which the document does not list`,
      ];
    }
    return pointer(
      'paths',
      match.template,
      method,
      'responses',
      String(response.status),
      'content',
      'application/json',
      'schema',
    );
  };

  return (response) => {
    const ref = schemaRefFor(response);
    if (Array.isArray(ref)) return ref;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    if (validate(response.body)) return [];
    return [`${response.method} ${response.path} ${response.status}: ${ajv.errorsText(validate.errors)}`];
  };
}
