import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The docs/ directory, with a trailing slash. */
export const DOCS_DIR = fileURLToPath(new URL('../', import.meta.url));

/**
 * The guides this test keeps honest. The other docs (architecture, PostgreSQL,
 * Redis, benchmarks) belong to their packages' owners.
 */
export const GUIDES = [
  'README.md',
  'getting-started.md',
  'configuration.md',
  'events.md',
  'receiving-webhooks.md',
  'delivery-lifecycle.md',
  'operations.md',
  'portal.md',
  'scaling.md',
  'security.md',
  'observability.md',
  'troubleshooting.md',
];

/** A fenced code block, with the sample file named by the marker comment right above it. */
export interface CodeBlock {
  language: string;
  code: string;
  /** Path relative to docs/, from `<!-- sample: examples/x.ts -->`; null without a marker. */
  sample: string | null;
  line: number;
}

const SAMPLE_MARKER = /^<!-- sample: (\S+) -->$/;

/** Every fenced block of a markdown text, in order. */
export function codeBlocksOf(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const opening = /^```(\S*)\s*$/.exec(lines[index] ?? '');
    if (!opening) continue;
    const end = lines.indexOf('```', index + 1);
    if (end === -1) throw new Error(`unclosed code block at line ${index + 1}`);
    const marker = SAMPLE_MARKER.exec(lines[index - 1] ?? '');
    blocks.push({
      language: opening[1] ?? '',
      code: lines.slice(index + 1, end).join('\n'),
      sample: marker?.[1] ?? null,
      line: index + 1,
    });
    index = end;
  }
  return blocks;
}

/** Relative link targets of a markdown text (no URLs, no in-page anchors), without their `#fragment`. */
export function relativeLinksOf(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
  return targets
    .filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'))
    .map((target) => target.replace(/#.*$/, ''));
}

export function readDoc(name: string): string {
  return readFileSync(`${DOCS_DIR}${name}`, 'utf8');
}

/** The sample files, as paths relative to docs/. */
export function sampleFiles(): string[] {
  return readdirSync(`${DOCS_DIR}examples`)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `examples/${file}`)
    .sort();
}
