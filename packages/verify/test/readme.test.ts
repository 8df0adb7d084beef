import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';

/*
 * The README's samples that carry a `<!-- sample: test/samples/x.ts -->` marker are those files, verbatim,
 * and they run.
 */

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function sampleBlock(path: string): string | undefined {
  const marker = `<!-- sample: ${path} -->\n\`\`\`ts\n`;
  const start = readme.indexOf(marker);
  if (start === -1) return undefined;
  const code = start + marker.length;
  return readme.slice(code, readme.indexOf('\n```', code));
}

afterEach(() => vi.restoreAllMocks());

describe('the README', () => {
  it('shows the Standard Webhooks sample verbatim, and it runs', async () => {
    const path = 'test/samples/readme-standard-webhooks.ts';
    const file = readFileSync(new URL(`../${path}`, import.meta.url), 'utf8').replace(/\n$/, '');
    expect(sampleBlock(path)).toBe(file);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await import('./samples/readme-standard-webhooks');
    expect(log.mock.calls).toEqual([
      ['whdel_01', 'webhook_test'],
      [`whsec_${Buffer.from('c'.repeat(64)).toString('base64')}`],
    ]);
  });
});
