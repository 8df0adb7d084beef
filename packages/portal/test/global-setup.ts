import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The browser tests load the standalone script the express package serves, which is the portal's build.
 * It is built again when a source is newer than it, so a test never drives stale code; in CI the build
 * step has just run and nothing is rebuilt.
 */

const PORTAL = fileURLToPath(new URL('../', import.meta.url));
const OUTPUT = join(PORTAL, 'dist/standalone.js');

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

export default function setup(): void {
  const built = existsSync(OUTPUT) ? statSync(OUTPUT).mtimeMs : 0;
  if (newestMtime(join(PORTAL, 'src')) <= built) return;
  console.log('building @svc/webhooks-portal for the browser tests');
  execFileSync('pnpm', ['--filter', '@svc/webhooks-portal', 'run', 'build'], {
    cwd: PORTAL,
    stdio: 'inherit',
  });
}
