import { afterEach, expect } from 'vitest';
import { openApiDocument } from '../src/index';
import { createDocumentValidator } from './openapi-validator';
import type { Harness } from './router-harness';

const validate = createDocumentValidator(openApiDocument);

/**
 * After each test, checks every response the router sent during it against the
 * OpenAPI document: a documented status for that operation, and a body that
 * validates against the documented schema.
 */
export function checkResponsesAgainstDocument(current: () => Harness | undefined): void {
  afterEach(() => {
    const harness = current();
    if (!harness) return;
    const problems = harness.responses.flatMap(validate);
    expect(problems).toEqual([]);
  });
}
