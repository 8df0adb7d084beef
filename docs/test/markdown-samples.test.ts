import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { builtInEvents } from '@svc/webhooks-core';
import { describe, expect, it } from 'vitest';
import { codeBlocksOf, DOCS_DIR, GUIDES, readDoc, relativeLinksOf, sampleFiles } from './markdown-blocks';

/** Languages whose blocks are code a reader would run, so they must come from a tested sample. */
const CODE_LANGUAGES = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs', 'cjs', 'tsx']);

describe.each(GUIDES)('docs/%s', (guide) => {
  const markdown = readDoc(guide);
  const blocks = codeBlocksOf(markdown);

  it('shows every TypeScript or JavaScript sample from a tested file in docs/examples', () => {
    const unbacked = blocks.filter((block) => CODE_LANGUAGES.has(block.language) && block.sample === null);
    expect(unbacked.map((block) => `line ${block.line}`)).toEqual([]);
  });

  it.each(blocks.filter((block) => block.sample !== null).map((block) => [block.sample, block] as const))(
    'shows %s verbatim',
    (sample, block) => {
      expect(block.code).toBe(readDoc(sample!).replace(/\n$/, ''));
    },
  );

  it('links only to files that exist', () => {
    const missing = relativeLinksOf(markdown).filter(
      (target) => !existsSync(normalize(join(DOCS_DIR, dirname(guide), target))),
    );
    expect(missing).toEqual([]);
  });
});

describe('docs/README.md', () => {
  it('links every guide in docs/', () => {
    const linked = new Set(relativeLinksOf(readDoc('README.md')));
    const guides = readdirSync(DOCS_DIR).filter((file) => file.endsWith('.md') && file !== 'README.md');
    expect(guides.filter((guide) => !linked.has(guide))).toEqual([]);
  });
});

describe('docs/examples', () => {
  it('holds no sample that a guide does not show', () => {
    const shown = new Set(
      GUIDES.flatMap((guide) => codeBlocksOf(readDoc(guide)).map((block) => block.sample)),
    );
    expect(sampleFiles().filter((file) => !shown.has(file))).toEqual([]);
  });
});

describe('docs/events.md', () => {
  it('lists exactly the built-in event types, with their entity types', () => {
    const rows = [...readDoc('events.md').matchAll(/^\| `([a-z_]+)`\s*\| `([a-z_]+)`\s*\|/gm)].map(
      (match) => [match[1], match[2]],
    );
    expect(rows).toEqual(builtInEvents.map((definition) => [definition.type, definition.entityType]));
  });
});
