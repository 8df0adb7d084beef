/**
 * Writes the OpenAPI document of the management API to docs/openapi.json at the
 * repository root. Run with `pnpm --filter @svc/webhooks-express openapi` after
 * changing a route or a schema; a test fails while the file is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../src/openapi';

const target = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(openApiDocument, null, 2)}\n`);
console.log(`wrote ${Object.keys(openApiDocument.paths).length} paths to docs/openapi.json`);
