import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  Application,
  type DeclarationReflection,
  ReflectionKind,
  TSConfigReader,
  TypeDocReader,
} from 'typedoc';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * Core's public surface is deliberate: every name an entry exports is in the
 * API reference and in the README's API table, and the main entry stays small
 * (each runtime export is a semver promise from 1.0.0 on).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CORE_README = `${ROOT}packages/core/README.md`;
const MAX_MAIN_RUNTIME_EXPORTS = 50;

/** Core's entries: the module name typedoc gives each (its `@module` tag) and its source file. */
const CORE_ENTRIES = [
  { module: '@svc/webhooks-core', file: 'packages/core/src/index.ts' },
  { module: '@svc/webhooks-core/schemas', file: 'packages/core/src/schemas.ts' },
  { module: '@svc/webhooks-core/adapter-kit', file: 'packages/core/src/adapter-kit.ts' },
  { module: '@svc/webhooks-core/testing', file: 'packages/core/src/testing.ts' },
  { module: '@svc/webhooks-core/otel', file: 'packages/core/src/otel.ts' },
];

/** Every name an entry file exports, types included, as the TypeScript compiler sees them. */
function exportedNames(files: readonly string[]): Map<string, string[]> {
  const tsconfig = ts.getParsedCommandLineOfConfigFile(
    `${ROOT}tsconfig.base.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  );
  const program = ts.createProgram(
    files.map((file) => ROOT + file),
    tsconfig?.options ?? {},
  );
  const checker = program.getTypeChecker();
  const names = new Map<string, string[]>();
  for (const file of files) {
    const source = program.getSourceFile(ROOT + file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`TypeScript could not read ${file}`);
    names.set(
      file,
      checker.getExportsOfModule(symbol).map((exported) => exported.getName()),
    );
  }
  return names;
}

/** The identifiers named in backticks in the table rows of the README's `## API` section. */
function readmeApiNames(path: string): Set<string> {
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf('\n## API\n');
  if (start < 0) throw new Error(`${path} has no "## API" section`);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  const names = new Set<string>();
  for (const line of section.split('\n')) {
    if (!line.startsWith('|')) continue;
    for (const match of line.matchAll(/`([A-Za-z_$][\w$]*)/g)) names.add(match[1] as string);
  }
  return names;
}

/** The names typedoc documents under each module of the reference `pnpm docs` builds. */
async function referenceNames(): Promise<Map<string, Set<string>>> {
  const app = await Application.bootstrapWithPlugins(
    {
      options: `${ROOT}typedoc.json`,
      tsconfig: `${ROOT}typedoc.tsconfig.json`,
      skipErrorChecking: true,
      logLevel: 'Error',
    },
    [new TypeDocReader(), new TSConfigReader()],
  );
  const project = await app.convert();
  if (!project) throw new Error('typedoc could not convert the project');
  const modules = new Map<string, Set<string>>();
  for (const child of project.getChildrenByKind(ReflectionKind.Module)) {
    const names = (child.children ?? []).map((reflection: DeclarationReflection) => reflection.name);
    modules.set(child.name, new Set(names));
  }
  return modules;
}

describe("core's public surface", () => {
  const exported = exportedNames(CORE_ENTRIES.map((entry) => entry.file));
  let reference: Map<string, Set<string>>;

  beforeAll(async () => {
    reference = await referenceNames();
  }, 120_000);

  it(`the main entry has at most ${MAX_MAIN_RUNTIME_EXPORTS} runtime exports`, async () => {
    const main = await import('@svc/webhooks-core');
    expect(Object.keys(main).length).toBeLessThanOrEqual(MAX_MAIN_RUNTIME_EXPORTS);
  });

  it.each(CORE_ENTRIES)('every export of $module is in the API reference', ({ module, file }) => {
    const documented = reference.get(module);
    expect(documented, `typedoc has a module named ${module}`).toBeDefined();
    const missing = (exported.get(file) ?? []).filter((name) => !documented?.has(name));
    expect(missing, `exported by ${file} but absent from the reference`).toEqual([]);
  });

  it.each(CORE_ENTRIES)("every export of $module is in the core README's API table", ({ file }) => {
    const inTable = readmeApiNames(CORE_README);
    const missing = (exported.get(file) ?? []).filter((name) => !inTable.has(name));
    expect(missing, `exported by ${file} but absent from packages/core/README.md "## API"`).toEqual([]);
  });
});
