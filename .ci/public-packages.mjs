// Prints the directories of the workspace packages that get published (one per
// line): everything under packages/ whose package.json is not private.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dirs = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join('packages', entry.name))
  .filter((dir) => {
    try {
      return JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).private !== true;
    } catch {
      return false;
    }
  })
  .sort();
console.log(dirs.join('\n'));
