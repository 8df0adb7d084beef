import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { vectors, vectorsPath } from './vectors';

const guide = readFileSync(new URL('../../../docs/receiving-webhooks.md', import.meta.url), 'utf8');

/** The fenced ```python blocks of the receiving guide that define `verify` (not library usage). */
function pythonBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```python\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1] as string)
    .filter((block) => /^def verify\(/m.test(block));
}

// Runs every vector through the documented verify() and prints one outcome per case, as JSON.
const DRIVER = `
import json as _json, sys as _sys
_cases = _json.load(open(_sys.argv[1], encoding="utf-8"))["cases"]
_out = []
for _case in _cases:
    try:
        verify(_case["secret"], _case["header"], _case["body"].encode("utf-8"), _case["now"], _case["toleranceMs"])
        _out.append({"valid": True})
    except WebhookVerificationError as _error:
        _out.append({"valid": False, "code": _error.code})
print(_json.dumps(_out))
`;

describe('the Python snippet in docs/receiving-webhooks.md', () => {
  const blocks = pythonBlocks(guide);

  it('is a single block defining verify()', () => {
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatch(/^def verify\(secret, header, body, now_ms=None, tolerance_ms=300_000\):$/m);
  });

  it('agrees with every case of test-vectors.json when run with python3', () => {
    const program = `${blocks[0]}\n${DRIVER}`;
    const stdout = execFileSync('python3', ['-c', program, fileURLToPath(vectorsPath)], { encoding: 'utf8' });
    const outcomes = JSON.parse(stdout) as unknown[];
    expect(outcomes).toHaveLength(vectors.length);
    const disagreements = vectors
      .map((vector, i) => ({ name: vector.name, expected: vector.expected, got: outcomes[i] }))
      .filter(({ expected, got }) => JSON.stringify(expected) !== JSON.stringify(got));
    expect(disagreements).toEqual([]);
  });
});
