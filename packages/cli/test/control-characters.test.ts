import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestReceiver, type TestReceiver } from '@svc/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../src/io';
import { runCli } from '../src/program';
import { startRecoveryServer } from './recovery-server';
import { runBin, SECRET, tempFile } from './run-cli';

/*
 * Text from elsewhere reaches the terminal with its control characters shown, never acted on: a real
 * local HTTPS receiver answers `trigger` with escape sequences, and a management API (a local server
 * standing in for a hostile or compromised host) puts them in its messages and fields.
 */

/** Sets the terminal title, then clears the screen, then claims a verdict. */
const HOSTILE = 'before \u001b]0;pwned\u0007\u001b[2J\u009b31mall good\rafter';
/** What the CLI prints for it in text mode. */
const SHOWN = 'before \\u001b]0;pwned\\u0007\\u001b[2J\\u009b31mall good\\rafter';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the tests look for control characters.
const ANY_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Nothing a terminal acts on: no ESC, BEL, CR, DEL or C1 in any of the run's output. */
function expectInert(...outputs: string[]): void {
  for (const output of outputs) {
    expect(output).not.toContain('\u001b');
    expect(output).not.toMatch(ANY_CONTROL);
  }
}

describe('trigger prints a hostile receiver’s answer', () => {
  let receiver: TestReceiver;
  let ca: string;

  beforeAll(async () => {
    receiver = await startTestReceiver();
    ca = tempFile('receiver-ca.pem', receiver.ca);
    receiver.respond(() => ({
      status: 500,
      headers: { 'content-type': 'text/plain' },
      body: `${HOSTILE}\nsecond line\twith a tab\n`,
    }));
  });
  afterAll(() => receiver.close());

  function trigger(...extra: string[]) {
    return runBin([
      'trigger',
      'job_created',
      '--url',
      receiver.url,
      '--secret',
      SECRET,
      '--ca',
      ca,
      ...extra,
    ]);
  }

  it('shows the escape sequences as text, with no ESC byte, and keeps its lines and tabs', async () => {
    const run = await trigger();
    expect(run.code).toBe(1);
    expectInert(run.stdout, run.stderr);
    expect(run.stdout).toContain('← 500 Internal Server Error\n');
    expect(run.stdout).toContain(`${SHOWN}\nsecond line\twith a tab\n`);
  });

  it('--json writes valid JSON whose excerpt is exactly what the receiver sent, escaped once', async () => {
    const run = await trigger('--json');
    expect(run.code).toBe(1);
    expectInert(run.stdout, run.stderr);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      statusCode: 500,
      excerpt: `${HOSTILE}\nsecond line\twith a tab\n`,
    });
    expect(run.stdout).toContain(`"excerpt": "${SHOWN}\\nsecond line\\twith a tab\\n"`);
  });
});

describe('management commands print a hostile API’s text', () => {
  let server: Server;
  let api: string;

  beforeAll(async () => {
    server = createServer((req, res) => answerHostile(req.method ?? '', req.url ?? '', res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/agency/webhooks`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function cli(...args: string[]) {
    return runBin(args, { env: { SVC_WEBHOOKS_API: api, SVC_WEBHOOKS_TOKEN: 'tok_owner' } });
  }

  it('test: the result’s message', async () => {
    const run = await cli('test');
    expect(run.code).toBe(0);
    expectInert(run.stdout, run.stderr);
    expect(run.stdout).toBe(`${SHOWN}\n`);
  });

  it('replay: the API’s error code and message, on stderr and in the --json error', async () => {
    const text = await cli('replay', 'd_1');
    expect(text.code).toBe(4);
    expectInert(text.stdout, text.stderr);
    expect(text.stderr).toContain(`answered 403 forbidden\\u001b[8m: ${SHOWN}\n`);

    const json = await cli('replay', 'd_1', '--json');
    expect(json.code).toBe(4);
    expectInert(json.stdout, json.stderr);
    const { error } = JSON.parse(json.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('management_api_error');
    expect(error.message).toContain(`answered 403 forbidden\u001b[8m: ${HOSTILE}`);
  });

  it('recover: the start of an answer that is not JSON (a proxy’s page)', async () => {
    const run = await cli('recover', '--since', '24h');
    expect(run.code).toBe(4);
    expectInert(run.stdout, run.stderr);
    expect(run.stderr).toContain(`answered 502 Bad Gateway: <h1>${SHOWN}</h1>`);
  });

  it('recoveries: the fields of each listed recovery and the next cursor', async () => {
    const run = await cli('recoveries');
    expect(run.code).toBe(0);
    expectInert(run.stdout, run.stderr);
    expect(run.stdout).toContain(`rec_1 ${SHOWN}  \\u001b[2Jcompleted  1 of 1 replayed`);
    expect(run.stdout).toContain('job_created, \\u001b[8mhidden');
    expect(run.stdout).toContain('More: svc-webhooks recoveries --cursor \\u009b2Jnext\n');

    const json = await cli('recoveries', '--json');
    expectInert(json.stdout, json.stderr);
    expect(JSON.parse(json.stdout)).toMatchObject({ nextCursor: '\u009b2Jnext' });
  });
});

/** Answers each management call the commands make with control characters in the text it returns. */
function answerHostile(method: string, url: string, res: ServerResponse): void {
  const path = url.replace('/v1/agency/webhooks', '');
  const json = (status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (method === 'POST' && path === '/config/test') {
    json(200, { success: true, statusCode: 204, message: HOSTILE });
  } else if (method === 'POST' && path.endsWith('/replay')) {
    json(403, { error: { code: 'forbidden\u001b[8m', message: HOSTILE } });
  } else if (method === 'POST' && path === '/deliveries/recover') {
    res.writeHead(502, { 'content-type': 'text/html' }).end(`<h1>${HOSTILE}</h1>`);
  } else if (method === 'GET' && path.startsWith('/recoveries?')) {
    json(200, {
      recoveries: [
        {
          id: `rec_1 ${HOSTILE}`,
          status: '\u001b[2Jcompleted',
          matched: 1,
          replayed: 1,
          since: 0,
          until: 1,
          eventTypes: ['job_created', '\u001b[8mhidden'],
          createdAt: 2,
        },
      ],
      nextCursor: '\u009b2Jnext',
    });
  } else json(404, { error: { code: 'not_found', message: 'Not found.' } });
}

describe('the progress bar', () => {
  it('is still redrawn in place with \\r on a terminal: the filter applies to text, not to the bar', async () => {
    const server = await startRecoveryServer('tok_owner', [
      { createdAt: Date.now(), eventType: 'job_created' },
    ]);
    try {
      let stdout = '';
      let stderr = '';
      const io: CliIo = {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        readStdin: async () => new Uint8Array(),
        stdinIsTTY: false,
        stderrIsTTY: true,
        env: {},
        cwd: process.cwd(),
      };
      const code = await runCli(
        ['recover', '--since', '1h', '--interval', '1', '--api', server.api, '--token', 'tok_owner'],
        io,
      );
      expect(code).toBe(0);
      expect(stderr).toContain(`\r[${'#'.repeat(24)}] 1/1 replayed`);
      expect(stdout).toBe(
        'Recovery rec_1 started: 1 failed deliveries to replay.\nRecovery rec_1 completed: 1 of 1 replayed.\n',
      );
    } finally {
      await server.close();
    }
  });
});
