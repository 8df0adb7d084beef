import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBin } from './run-cli';

const COMMANDS: [string, string[]][] = [
  ['sign', ['--secret', '--timestamp', '--body']],
  ['verify', ['--header', '--secret', '--tolerance', '--ignore-timestamp']],
  ['trigger', ['<eventType>', '--url', '--secret', '--set', '--ca', '--events']],
  ['schema', ['[eventType]', '--example', '--events']],
  ['test', ['--api', '--token', '--event-type']],
  ['replay', ['<deliveryId>', '--api', '--token']],
  ['recover', ['--since', '--until', '--event-type', '--dry-run', '--no-wait']],
];

describe('svc-webhooks --help', () => {
  it('lists every command and the exit codes', async () => {
    const run = await runBin(['--help']);
    expect(run.code).toBe(0);
    for (const [command] of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(run.stdout).toContain('Exit codes:');
    expect(run.stdout).toMatch(/^ {2}4 {3}the management API refused/m);
  });

  it.each(COMMANDS)(
    '%s --help describes its arguments and options, and exits 0',
    async (command, expected) => {
      const run = await runBin([command, '--help']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Usage: svc-webhooks ${command}`);
      for (const text of expected) expect(run.stdout).toContain(text);
    },
  );

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const run = await runBin(['--version']);
    expect(run).toMatchObject({ code: 0, stdout: `${version}\n` });
  });
});

describe('usage errors exit 2', () => {
  it.each([
    ['an unknown command', ['deploy']],
    ['an unknown option', ['schema', '--colour']],
    ['a missing required option', ['trigger', 'job_created', '--secret', 's']],
    ['a missing argument', ['replay', '--api', 'http://127.0.0.1:9', '--token', 't']],
    ['a malformed number', ['sign', '--secret', 's', '--body', '{}', '--timestamp', 'soon']],
    ['an unknown event type', ['schema', 'job_exploded']],
    ['a URL that is not http', ['trigger', 'job_created', '--url', 'ftp://x', '--secret', 's']],
  ])('%s', async (_name, args) => {
    const run = await runBin(args);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toBe('');
    expect(run.stdout).toBe('');
  });

  it('with --json, also writes the error as JSON on stdout', async () => {
    const run = await runBin(['schema', 'job_exploded', '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: 'invalid_option', message: expect.stringContaining('Unknown event type'), exitCode: 2 },
    });
  });

  it('takes the secret from SVC_WEBHOOKS_SECRET when --secret is not given', async () => {
    const run = await runBin(['sign', '--body', '{}', '--timestamp', '1767225600000'], {
      env: { SVC_WEBHOOKS_SECRET: 'a'.repeat(64) },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^t=1767225600000,v1=[0-9a-f]{64}\n$/);
  });
});
