/**
 * `pnpm events:generate` writes the event contract's generated files (the events reference page, the
 * types module of @svc/webhooks-verify, docs/openapi.json) from the built-in catalogue;
 * `pnpm events:check` (in CI) only compares them and exits 1 when one is stale.
 */
import { writeFileSync } from 'node:fs';
import { eventContractFiles, ROOT, staleContractFiles } from './event-contract';

if (process.argv.includes('--check')) {
  const stale = staleContractFiles();
  if (stale.length > 0) {
    console.error(
      `Stale generated files: ${stale.join(', ')}. Run \`pnpm events:generate\` and commit them.`,
    );
    process.exit(1);
  }
  console.log('event contract files are current');
} else {
  for (const file of eventContractFiles()) writeFileSync(ROOT + file.path, file.contents);
  console.log('wrote the event contract files');
}
