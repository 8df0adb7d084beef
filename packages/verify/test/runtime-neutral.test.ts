import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const dist = resolve(src, '../dist');

/** Every module specifier a source file imports or re-exports, static or dynamic. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)) {
    found.push(match[1] as string);
  }
  return found;
}

/** The files an entry reaches through relative imports, entry included. */
function sourceGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pending = [resolve(src, entry)];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (graph.has(file)) continue;
    const imports = specifiers(file);
    graph.set(file, imports);
    for (const specifier of imports) {
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), `${specifier}.ts`));
    }
  }
  return graph;
}

function nonRelativeImports(graph: Map<string, string[]>): string[] {
  return [...graph.values()].flat().filter((specifier) => !specifier.startsWith('.'));
}

/** Source text without comments and string literals, which may mention `Buffer` in prose. */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
}

function uses(graph: Map<string, string[]>, pattern: RegExp): string[] {
  return [...graph.keys()].filter((file) => pattern.test(code(file)));
}

describe('runtime neutrality of the source graph', () => {
  it.each(['web.ts', 'fetch.ts'])('%s reaches no node: module, no package and no Buffer', (entry) => {
    const graph = sourceGraph(entry);
    expect(graph.size).toBeGreaterThan(5);
    expect(nonRelativeImports(graph)).toEqual([]);
    expect(uses(graph, /\bBuffer\b/)).toEqual([]);
  });

  it('the Node entry reaches node:crypto and no Web Crypto', () => {
    const graph = sourceGraph('index.ts');
    expect(new Set(nonRelativeImports(graph))).toEqual(new Set(['node:buffer', 'node:crypto']));
    expect(uses(graph, /crypto\.subtle|\bsubtle\(/)).toEqual([]);
  });

  it('the scanner sees node: imports where they exist (guards the check above)', () => {
    expect(specifiers(resolve(src, 'node-signature.ts'))).toContain('node:crypto');
    expect(uses(sourceGraph('index.ts'), /\bBuffer\b/).length).toBeGreaterThan(0);
  });
});

// The build runs before the tests in CI; locally the check runs once `pnpm --filter @svc/webhooks-verify build` has.
describe.skipIf(!existsSync(resolve(dist, 'web.js')))('runtime neutrality of the built files', () => {
  it.each(['web.js', 'web.cjs', 'fetch.js', 'fetch.cjs'])('dist/%s imports and requires nothing', (file) => {
    const text = readFileSync(resolve(dist, file), 'utf8');
    expect(text).not.toMatch(/^\s*import\s[^(]/m);
    expect(text).not.toMatch(/\brequire\(/);
    expect(text).not.toMatch(/\bnode:/);
  });

  it('dist/index.js does import node crypto (guards the check above)', () => {
    expect(readFileSync(resolve(dist, 'index.js'), 'utf8')).toMatch(/^import .* from '(node:)?crypto';$/m);
  });
});
