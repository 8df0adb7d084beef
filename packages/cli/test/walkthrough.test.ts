import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, SECRET } from './run-cli';

/*
 * The five-minute walkthrough of docs/receiving-webhooks.md, step 3: the built binary against the guide's
 * own typed receiver, over plain http on localhost, as a developer would run it.
 */

// Loaded by path rather than imported by name: the guide's sample is type-checked with the docs, whose
// module paths this package's tsconfig does not have.
const SAMPLE = new URL('../../../docs/examples/typed-receiver.ts', import.meta.url).href;
type CreateTypedReceiver = (secret: string, log: (line: string) => void) => Server;

const lines: string[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  const { createTypedReceiver } = (await import(SAMPLE)) as { createTypedReceiver: CreateTypedReceiver };
  server = createTypedReceiver(SECRET, (line) => lines.push(line));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://localhost:${(server.address() as AddressInfo).port}/webhooks`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function trigger(...args: string[]) {
  return runBin(['trigger', ...args, '--url', url], { env: { SVC_WEBHOOKS_SECRET: SECRET } });
}

describe('the receiving-webhooks walkthrough', () => {
  it('triggers events the typed receiver verifies and handles by their metadata', async () => {
    lines.length = 0;
    const created = await trigger('job_created');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('← 204 No Content');
    const cancelled = await trigger('job_cancelled', '--set', 'metadata.reason=Tenant moved out');
    expect(cancelled.code).toBe(0);
    expect(lines).toEqual([
      'job #1042 created (property prop_2Ks8Vn)',
      'job #1042 cancelled: Tenant moved out',
    ]);
  });

  it('a delivery signed long ago is rejected by the receiver, and the CLI exits 1', async () => {
    lines.length = 0;
    const run = await trigger('job_cancelled', '--set', 'deliveredAt=1700000000000');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('← 401 Unauthorized');
    expect(lines).toEqual(['rejected: timestamp_out_of_tolerance']);
  });
});
