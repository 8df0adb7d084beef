import {
  generateStandardKeyPair,
  signStandardWebhook,
  signStandardWebhookAsymmetric,
  signWebhook,
  toStandardSecret,
  verifyStandardWebhookSignature,
} from '@svc/webhooks-verify';
import { describe, expect, it } from 'vitest';
import { runBin, SECRET } from './run-cli';

/* `sign --scheme standard` and `verify` of Standard Webhooks headers, through the built binary. */

const T = 1_767_225_600_000;
const SECONDS = T / 1000;
const BODY = '{"webhookId":"whdel_1","eventType":"job_cancelled","attempt":1}';
const ID = 'whdel_1';

/** The three headers as `--header 'name: value'` arguments. */
function headerArgs(headers: Record<string, string>): string[] {
  return Object.entries(headers).flatMap(([name, value]) => ['--header', `${name}: ${value}`]);
}

function standardHeaders(signature = signStandardWebhook(BODY, SECRET, ID, SECONDS)): Record<string, string> {
  return { 'webhook-id': ID, 'webhook-timestamp': String(SECONDS), 'webhook-signature': signature };
}

function verify(headers: Record<string, string>, secrets: string[], ...extra: string[]) {
  return runBin([
    'verify',
    '--body',
    BODY,
    ...headerArgs(headers),
    ...secrets.flatMap((secret) => ['--secret', secret]),
    '--now',
    String(T),
    ...extra,
  ]);
}

/** Parses `name: value` lines. */
function parseHeaderLines(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => {
        const [name = '', ...rest] = line.split(': ');
        return [name, rest.join(': ')];
      }),
  );
}

describe('svc-webhooks sign --scheme standard', () => {
  it('prints the three headers, one "name: value" a line, that the verify package accepts', async () => {
    const run = await runBin([
      'sign',
      '--body',
      BODY,
      '--scheme',
      'standard',
      '--id',
      ID,
      '--secret',
      SECRET,
      '--timestamp',
      String(T + 999),
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const headers = parseHeaderLines(run.stdout);
    // The timestamp is the whole seconds of the time signed at, as the service sends it.
    expect(headers).toEqual(standardHeaders());
    expect(verifyStandardWebhookSignature(BODY, headers, SECRET, { now: T })).toEqual({
      timestamp: T,
      id: ID,
    });
  });

  it('makes up a msg_ id without --id, and answers JSON with --json', async () => {
    const run = await runBin(
      ['sign', '--scheme', 'standard', '--secret', SECRET, '--timestamp', String(T), '--json'],
      { stdin: BODY },
    );
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toEqual({
      headers: {
        'webhook-id': expect.stringMatching(/^msg_[0-9a-f]{32}$/),
        'webhook-timestamp': String(SECONDS),
        'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
      },
      id: result.headers['webhook-id'],
      timestamp: T,
    });
    expect(verifyStandardWebhookSignature(BODY, result.headers, SECRET, { now: T }).id).toBe(result.id);
  });

  it('signs alike with the secret’s whsec_ form', async () => {
    const args = ['sign', '--body', BODY, '--scheme', 'standard', '--id', ID, '--timestamp', String(T)];
    const hex = await runBin([...args, '--secret', SECRET]);
    const whsec = await runBin([...args, '--secret', toStandardSecret(SECRET)]);
    expect(whsec.code).toBe(0);
    expect(whsec.stdout).toBe(hex.stdout);
  });

  it('keeps the service scheme by default: the X-Service-Signature value alone', async () => {
    const run = await runBin(['sign', '--body', BODY, '--secret', SECRET, '--timestamp', String(T)]);
    expect(run.stdout).toBe(`${signWebhook(BODY, SECRET, T)}\n`);
  });

  it.each([
    ['--id without --scheme standard', ['--id', ID], '--id is the webhook-id of Standard Webhooks'],
    [
      'a --timestamp in seconds',
      ['--scheme', 'standard', '--timestamp', String(SECONDS)],
      `looks like epoch seconds; it takes epoch milliseconds (pass ${SECONDS}000)`,
    ],
    ['an unknown scheme', ['--scheme', 'svix'], 'Allowed choices are service, standard'],
    ['an empty --id', ['--scheme', 'standard', '--id', ''], 'webhook-id'],
  ])('refuses %s with exit 2, printing nothing to stdout', async (_name, extra, message) => {
    const run = await runBin(['sign', '--body', BODY, '--secret', SECRET, ...extra]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });
});

describe('svc-webhooks verify of Standard Webhooks headers', () => {
  it('verifies the three headers given as --header "name: value", and says so', async () => {
    const run = await verify(standardHeaders(), [SECRET]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(
      'valid: Standard Webhooks, signed at 2026-01-01T00:00:00.000Z (webhook-timestamp=1767225600), webhook-id whdel_1\njob_cancelled whdel_1, attempt 1\n',
    );
  });

  it('answers JSON with the scheme, the webhook-id and the time in epoch ms', async () => {
    const run = await verify(standardHeaders(), [SECRET], '--json');
    expect(JSON.parse(run.stdout)).toEqual({
      valid: true,
      scheme: 'standard',
      timestamp: T,
      id: ID,
      webhookId: 'whdel_1',
      eventType: 'job_cancelled',
    });
  });

  it('accepts the whsec_ form of the secret', async () => {
    expect((await verify(standardHeaders(), [toStandardSecret(SECRET)])).code).toBe(0);
  });

  it('verifies a v1a (Ed25519) entry with a whpk_ public key, old and new during a rotation', async () => {
    const current = generateStandardKeyPair();
    const previous = generateStandardKeyPair();
    const signature = signStandardWebhookAsymmetric(BODY, current.privateKey, ID, SECONDS);
    const run = await verify(standardHeaders(signature), [previous.publicKey, current.publicKey]);
    expect(run.code).toBe(0);
    const other = await verify(standardHeaders(signature), [previous.publicKey]);
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/^invalid: signature_mismatch\n/);
  });

  it('reads repeated webhook-signature headers as one list', async () => {
    const { privateKey, publicKey } = generateStandardKeyPair();
    const run = await runBin([
      'verify',
      '--body',
      BODY,
      '--header',
      `webhook-id: ${ID}`,
      '--header',
      `webhook-timestamp: ${SECONDS}`,
      '--header',
      `webhook-signature: ${signStandardWebhook(BODY, 'b'.repeat(64), ID, SECONDS)}`,
      '--header',
      `webhook-signature: ${signStandardWebhookAsymmetric(BODY, privateKey, ID, SECONDS)}`,
      '--secret',
      publicKey,
      '--now',
      String(T),
    ]);
    expect(run.code).toBe(0);
  });

  it('takes header names in any case', async () => {
    const headers = standardHeaders();
    const run = await runBin([
      'verify',
      '--body',
      BODY,
      '--header',
      `Webhook-Id: ${headers['webhook-id']}`,
      '--header',
      `WEBHOOK-TIMESTAMP:${headers['webhook-timestamp']}`,
      '--header',
      `Webhook-Signature: ${headers['webhook-signature']}`,
      '--secret',
      SECRET,
      '--now',
      String(T),
    ]);
    expect(run.code).toBe(0);
  });

  it.each([
    ['another secret', [`${'b'.repeat(64)}`], 'signature_mismatch'],
    ['the hex secret wrapped as whsec_<hex>', [`whsec_${SECRET}`], 'invalid_secret'],
  ])('with %s: exit 1, the verify package’s code and message', async (_name, secrets, code) => {
    const run = await verify(standardHeaders(), secrets);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^invalid: ${code}\\n@svc/webhooks-verify: `));
  });

  it('a webhook-timestamp 6 minutes old: exit 1 unless --ignore-timestamp', async () => {
    const old = SECONDS - 360;
    const headers = {
      ...standardHeaders(signStandardWebhook(BODY, SECRET, ID, old)),
      'webhook-timestamp': String(old),
    };
    const run = await verify(headers, [SECRET]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^invalid: timestamp_out_of_tolerance\n/);
    expect((await verify(headers, [SECRET], '--ignore-timestamp')).code).toBe(0);
  });

  it('hints at a trailing newline the sender did not sign', async () => {
    const run = await runBin([
      'verify',
      '--body',
      `${BODY}\n`,
      ...headerArgs(standardHeaders()),
      '--secret',
      SECRET,
      '--now',
      String(T),
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('hint: the body ends with a newline that was not signed');
  });

  it('under both schemes, auto verifies webhook-signature and --scheme service X-Service-Signature', async () => {
    const both = { ...standardHeaders(), 'x-service-signature': signWebhook(BODY, SECRET, T) };
    const auto = await verify(both, [SECRET], '--json');
    expect(JSON.parse(auto.stdout)).toMatchObject({ valid: true, scheme: 'standard' });
    // A bad Standard signature proves which header --scheme service read.
    const broken = { ...both, 'webhook-signature': signStandardWebhook(BODY, 'c'.repeat(64), ID, SECONDS) };
    const service = await verify(broken, [SECRET], '--scheme', 'service', '--json');
    expect(service.code).toBe(0);
    expect(JSON.parse(service.stdout)).toMatchObject({ valid: true, scheme: 'service', timestamp: T });
    expect((await verify(broken, [SECRET])).code).toBe(1);
  });

  it.each([
    [
      '--scheme standard with a webhook header missing',
      [...headerArgs({ 'webhook-id': ID, 'webhook-signature': 'v1,abc=' }), '--scheme', 'standard'],
      "missing: --header 'webhook-timestamp: …'",
    ],
    [
      '--scheme standard with only an X-Service-Signature value',
      ['--header', signWebhook(BODY, SECRET, T), '--scheme', 'standard'],
      'needs the three headers',
    ],
    [
      '--scheme service with only Standard Webhooks headers',
      [...headerArgs(standardHeaders()), '--scheme', 'service'],
      'No X-Service-Signature to verify',
    ],
    [
      'a header given twice',
      [...headerArgs(standardHeaders()), '--header', `webhook-id: ${ID}`],
      '--header gives webhook-id twice',
    ],
    ['an unknown scheme', [...headerArgs(standardHeaders()), '--scheme', 'both'], 'Allowed choices are'],
  ])('refuses %s with exit 2', async (_name, args, message) => {
    const run = await runBin(['verify', '--body', BODY, '--secret', SECRET, ...args]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });
});
