import { readFileSync } from 'node:fs';
import { signWebhook, verifyWebhookSignature } from '@svc/webhooks-verify';
import { describe, expect, it } from 'vitest';
import { runBin, SECRET, tempFile } from './run-cli';

/** The receiver test vectors the verify package ships, checked through the CLI. */
interface TestVector {
  name: string;
  secret: string | string[];
  body: string;
  header: string | null;
  now: number;
  toleranceMs: number;
  expected: { valid: boolean; code?: string };
}
const vectors: TestVector[] = JSON.parse(
  readFileSync(new URL('../../verify/test-vectors.json', import.meta.url), 'utf8'),
).cases;

const T = 1_767_225_600_000;
const BODY = '{"webhookId":"whdel_1","eventType":"job_cancelled","attempt":1}';

function verifyArgs(
  file: string,
  header: string,
  secrets: readonly string[],
  extra: string[] = [],
): string[] {
  return ['verify', file, '--header', header, ...secrets.flatMap((secret) => ['--secret', secret]), ...extra];
}

describe('svc-webhooks sign', () => {
  it('prints the header the verify package accepts for the file’s exact bytes', async () => {
    const file = tempFile('body.json', BODY);
    const run = await runBin(['sign', file, '--secret', SECRET, '--timestamp', String(T)]);
    expect(run.code).toBe(0);
    const header = run.stdout.trim();
    expect(header).toBe(signWebhook(BODY, SECRET, T));
    expect(verifyWebhookSignature(BODY, header, SECRET, { now: T })).toEqual({ timestamp: T });
  });

  it('signs standard input, and answers JSON with --json', async () => {
    const run = await runBin(['sign', '--secret', SECRET, '--timestamp', String(T), '--json'], {
      stdin: BODY,
    });
    expect(JSON.parse(run.stdout)).toEqual({ header: signWebhook(BODY, SECRET, T), timestamp: T });
  });

  it('refuses the masked secret with exit 2 and the verify package’s explanation', async () => {
    const run = await runBin(['sign', '--body', BODY, '--secret', 'service_whsec_********9d7b']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('@svc/webhooks-verify: The signing secret is the masked form');
  });
});

describe('svc-webhooks verify', () => {
  // The CLI always passes a header and at least one secret, so the two vectors without them do not apply.
  const applicable = vectors.filter((vector) => vector.header !== null && vector.secret.length !== 0);

  it.each(applicable.map((vector) => [vector.name, vector] as const))(
    'test vector: %s',
    async (_name, vector) => {
      const file = tempFile('body.json', vector.body);
      const secrets = Array.isArray(vector.secret) ? vector.secret : [vector.secret];
      const extra = ['--now', String(vector.now), '--tolerance', String(vector.toleranceMs), '--json'];
      const run = await runBin(verifyArgs(file, vector.header as string, secrets, extra));
      const result = JSON.parse(run.stdout);
      expect(result.valid).toBe(vector.expected.valid);
      expect(run.code).toBe(vector.expected.valid ? 0 : 1);
      if (!vector.expected.valid) expect(result.code).toBe(vector.expected.code);
    },
  );

  it('explains a failure in the verify package’s words', async () => {
    const file = tempFile('body.json', BODY);
    const header = signWebhook(BODY, SECRET, T - 360_000);
    const run = await runBin(verifyArgs(file, header, [SECRET], ['--now', String(T)]));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^invalid: timestamp_out_of_tolerance\n@svc\/webhooks-verify: The signature timestamp is 360000 ms old/,
    );
  });

  it('reports a valid delivery with its time and event', async () => {
    const file = tempFile('body.json', BODY);
    const run = await runBin(verifyArgs(file, signWebhook(BODY, SECRET, T), [SECRET], ['--now', String(T)]));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(
      'valid: signed at 2026-01-01T00:00:00.000Z (t=1767225600000)\njob_cancelled whdel_1, attempt 1\n',
    );
  });

  it('--ignore-timestamp verifies a delivery copied from a log long after it was sent', async () => {
    const file = tempFile('body.json', BODY);
    const run = await runBin(
      verifyArgs(file, signWebhook(BODY, SECRET, T), [SECRET], ['--ignore-timestamp']),
    );
    expect(run.code).toBe(0);
  });

  it.each([
    ['a trailing newline the sender did not sign', `${BODY}\n`, SECRET, 'ends with a newline'],
    [
      'a pretty-printed copy of the body',
      JSON.stringify(JSON.parse(BODY), null, 2),
      SECRET,
      're-formatted copy',
    ],
    ['a secret with a newline after it', BODY, `${SECRET}\n`, 'spaces or a newline around it'],
  ])('hints at %s', async (_name, body, secret, hint) => {
    const file = tempFile('body.json', body);
    const run = await runBin(verifyArgs(file, signWebhook(BODY, SECRET, T), [secret], ['--now', String(T)]));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('invalid: signature_mismatch');
    expect(run.stdout).toContain('hint: ');
    expect(run.stdout).toContain(hint);
  });

  it('gives no hint when nothing explains the mismatch', async () => {
    const file = tempFile('body.json', BODY);
    const run = await runBin(
      verifyArgs(file, signWebhook(BODY, SECRET, T), ['b'.repeat(64)], ['--now', String(T)]),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain('hint:');
  });
});
