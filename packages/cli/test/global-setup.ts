import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The CLI tests run the built binary, as users do. Before they start, it is built again if any source it
 * is made of (the CLI's, core's, verify's) is newer than the build, so a test never runs stale code; in
 * CI the build step has just run and nothing is rebuilt.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OUTPUTS = ['packages/cli/dist/bin.js', 'packages/core/dist/index.js', 'packages/verify/dist/index.js'];
const SOURCES = ['packages/cli/src', 'packages/core/src', 'packages/verify/src', 'packages/cli/package.json'];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

export default function setup(): void {
  const built = OUTPUTS.map((output) => join(ROOT, output));
  const oldestBuild = built.every(existsSync) ? Math.min(...built.map((file) => statSync(file).mtimeMs)) : 0;
  const newestSource = Math.max(...SOURCES.map((source) => newestMtime(join(ROOT, source))));
  if (newestSource <= oldestBuild) return;
  console.log('building @svc/webhooks-cli and the packages it uses for the CLI tests');
  // Only what the binary runs on; pnpm builds the selected packages in dependency order.
  const filters = ['@svc/webhooks-verify', '@svc/webhooks-core', '@svc/webhooks-cli'].flatMap((name) => [
    '--filter',
    name,
  ]);
  execFileSync('pnpm', [...filters, 'run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}
