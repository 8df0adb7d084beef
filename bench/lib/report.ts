import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

/** docs/benchmarks.md, where every benchmark writes its own marked section. */
export const BENCHMARKS_DOC = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));

const DOC_HEADER = `# Benchmarks

Each section below is written by one benchmark in \`bench/\` (\`pnpm bench\` runs them all) and replaced
on every run. Compare ratios measured side by side in one run, not absolute numbers across machines.
`;

function markers(name: string): { start: string; end: string } {
  return { start: `<!-- bench:${name}:start -->`, end: `<!-- bench:${name}:end -->` };
}

/**
 * Returns `doc` with the section `name` set to `markdown`: the text between
 * `<!-- bench:<name>:start -->` and `<!-- bench:<name>:end -->` is replaced, or the marked section is
 * appended when it is not there yet. Text outside the markers is kept as it is.
 */
export function replaceBenchSection(doc: string, name: string, markdown: string): string {
  const { start, end } = markers(name);
  const section = `${start}\n${markdown.trim()}\n${end}`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end, from);
  if (from !== -1 && to !== -1) return doc.slice(0, from) + section + doc.slice(to + end.length);
  const separator = doc === '' || doc.endsWith('\n\n') ? '' : doc.endsWith('\n') ? '\n' : '\n\n';
  return `${doc}${separator}${section}\n`;
}

const BIOME = fileURLToPath(new URL('../../node_modules/.bin/biome', import.meta.url));

/**
 * Writes (or replaces) the section `name` of docs/benchmarks.md, creating the file when absent, then
 * formats the file with the repository's Biome so `pnpm lint` stays clean after every run (Biome pads
 * Markdown tables, which the generators need not do themselves).
 */
export function writeBenchSection(name: string, markdown: string, path: string = BENCHMARKS_DOC): void {
  const doc = existsSync(path) ? readFileSync(path, 'utf8') : DOC_HEADER;
  writeFileSync(path, replaceBenchSection(doc, name, markdown));
  try {
    execFileSync(BIOME, ['format', '--write', path], { stdio: 'pipe' });
  } catch (error) {
    console.warn(`could not format ${path} with Biome (run pnpm format): ${(error as Error).message}`);
  }
}

/** One line describing where a run happened, for the top of a section. */
export function describeMachine(): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `Node ${process.version}, ${process.platform}/${process.arch}, ${availableParallelism()} cores (${model})`;
}

/** Renders a Markdown table; cells are already formatted text. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const rule = header.map((_, i) => (i === 0 ? '---' : '---:'));
  return [line(header), line(rule), ...rows.map(line)].join('\n');
}

/**
 * A ratio with two decimals, rounded down: bars are "at least", so a ratio that
 * misses one never prints as the bar itself (0.8989 is 0.89×, not 0.90× missed).
 */
export function formatRatio(ratio: number): string {
  return `${(Math.floor(ratio * 100) / 100).toFixed(2)}×`;
}
