import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createHostApp,
  createStaticAuthenticate,
  type HostApp,
  parseStaticTokens,
} from '@svc/example-express-host';
import { startTestReceiver, type TestReceiver } from '@svc/test-support';
import { buildExampleEnvelope, builtInEvents } from '@svc/webhooks-core';
import { verifyWebhook } from '@svc/webhooks-verify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runBin } from './run-cli';

/*
 * `test` and `replay` against the example host application (the management API on Express, a worker),
 * which delivers to the real local HTTPS receiver. The host allows private networks only because that
 * receiver listens on 127.0.0.1.
 */

let receiver: TestReceiver;
let host: HostApp;
let server: Server;
let api: string;

beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(() => receiver.close());
beforeEach(async () => {
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 204, body: '' }));
  host = await createHostApp({
    authenticate: createStaticAuthenticate(
      parseStaticTokens('tok_owner:agency-1:owner,tok_agent:agency-1:agent'),
    ),
    service: {
      urlPolicy: { allowPrivateNetworks: true },
      transport: { tls: { ca: receiver.ca } },
      retry: { maxAttempts: 1 },
    },
    worker: { pollIntervalMs: 20 },
    onError: () => {},
  });
  server = host.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/agency/webhooks`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await host.close();
});

async function configure(subscribedEventTypes: string[]): Promise<string> {
  const response = await fetch(`${api}/config`, {
    method: 'PUT',
    headers: { authorization: 'Bearer tok_owner', 'content-type': 'application/json' },
    body: JSON.stringify({ webhookUrl: receiver.url, enabled: true, subscribedEventTypes }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { signingSecret: string }).signingSecret;
}

function cli(args: string[], token = 'tok_owner') {
  return runBin(args, { env: { SVC_WEBHOOKS_API: api, SVC_WEBHOOKS_TOKEN: token } });
}

describe('svc-webhooks test', () => {
  it('has the host send webhook_test to the agency’s endpoint and prints the result', async () => {
    const secret = await configure(['job_cancelled']);
    const run = await cli(['test']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Test event delivered: the receiver answered HTTP 204.\n');
    const [request] = receiver.requests;
    expect(
      verifyWebhook(request?.rawBody ?? '', request?.headers['x-service-signature'], secret),
    ).toMatchObject({
      eventType: 'webhook_test',
      entityId: 'agency-1',
    });
  });

  it('--event-type sends that type’s example, signed, and adds nothing to the delivery log', async () => {
    const secret = await configure(['job_cancelled']);
    const run = await cli(['test', '--event-type', 'job_cancelled', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ success: true, statusCode: 204 });
    const request = receiver.requests.at(-1);
    const envelope = verifyWebhook(request?.rawBody ?? '', request?.headers['x-service-signature'], secret);
    expect(envelope.metadata).toEqual(buildExampleEnvelope(builtInEvents[2]).metadata);
    expect((await host.service.listDeliveries('agency-1')).deliveries).toEqual([]);
  });

  it('exits 1 when the receiver does not accept the test event', async () => {
    await configure(['job_cancelled']);
    receiver.respond(() => ({ status: 503, body: 'down' }));
    const run = await cli(['test', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ success: false, statusCode: 503 });
  });

  it.each([
    [
      'an event type the agency does not subscribe to',
      ['test', '--event-type', 'job_created'],
      'tok_owner',
      '400 validation_failed',
    ],
    ['an unknown token', ['test'], 'tok_nobody', '401 unauthorized'],
    ['an agent without the owner or admin role', ['test'], 'tok_agent', '403 forbidden'],
  ])('exits 4 with the API’s error for %s', async (_name, args, token, expected) => {
    await configure(['job_cancelled']);
    const run = await cli(args, token);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(`@svc/webhooks-cli: POST /config/test answered ${expected}`);
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('svc-webhooks replay', () => {
  it('re-enqueues a failed delivery, which then succeeds; a second replay is refused with exit 4', async () => {
    await configure(['job_cancelled']);
    receiver.respond(() => ({ status: 500 }));
    const emitted = await host.service.emit({
      agencyId: 'agency-1',
      eventType: 'job_cancelled',
      entityId: 'job-1',
      metadata: { jobId: 'job-1', agencyId: 'agency-1', jobNumber: 1, reason: 'Duplicate request' },
    });
    const id = emitted?.deliveryId ?? '';
    await vi.waitFor(
      async () => expect((await host.service.getDelivery('agency-1', id)).status).toBe('failed'),
      {
        timeout: 10_000,
        interval: 20,
      },
    );
    receiver.respond(() => ({ status: 200 }));

    const run = await cli(['replay', `whdel_${id}`]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`Delivery re-enqueued for another attempt. (${id})\n`);
    await vi.waitFor(
      async () => expect((await host.service.getDelivery('agency-1', id)).status).toBe('success'),
      {
        timeout: 10_000,
        interval: 20,
      },
    );

    const again = await cli(['replay', id]);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('answered 409 delivery_not_replayable');
  });
});

describe('svc-webhooks health and delivery', () => {
  it('say when a paused endpoint’s held delivery goes, and show a failed one with its error', async () => {
    await configure(['job_cancelled']);
    receiver.respond(() => ({ status: 503 }));
    const emit = async (n: number) =>
      (
        await host.service.emit({
          agencyId: 'agency-1',
          eventType: 'job_cancelled',
          entityId: `job-${n}`,
          metadata: { jobId: `job-${n}`, agencyId: 'agency-1', jobNumber: n, reason: 'Duplicate request' },
        })
      )?.deliveryId ?? '';
    // One attempt each (maxAttempts 1): five failed deliveries are five failures in a row, which open the breaker.
    const failed: string[] = [];
    for (let n = 1; n <= 5; n++) failed.push(await emit(n));
    await vi.waitFor(
      async () => expect((await host.service.getEndpointHealth('agency-1')).pausedUntil).not.toBeNull(),
      { timeout: 10_000, interval: 20 },
    );
    const held = await emit(6);
    const { pausedUntil } = await host.service.getEndpointHealth('agency-1');
    const until = new Date(pausedUntil as number).toISOString();

    const health = await cli(['health']);
    expect(health.code).toBe(0);
    expect(health.stdout).toMatch(/^failing {2}5 attempts in a row without a 2xx\n/);
    expect(health.stdout).toContain(`paused until: ${until} (held deliveries go then`);

    const shown = await cli(['delivery', `whdel_${held}`]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`${held}  pending  job_cancelled  attempt 0 of 1\n`);
    expect(shown.stdout).toContain(`next attempt: ${until} (endpoint paused until ${until}:`);

    const json = JSON.parse((await cli(['delivery', held, '--json'])).stdout);
    expect(json).toMatchObject({ id: held, status: 'pending', nextRetryAt: pausedUntil, pausedUntil });

    const gone = await cli(['delivery', failed[0] as string]);
    expect(gone.stdout).toMatch(/ {2}failed {2}job_cancelled {2}attempt 1 of 1\n/);
    expect(gone.stdout).toContain('last error: The receiver answered HTTP 503');
    expect(gone.stdout).not.toContain('next attempt');

    const missing = await cli(['delivery', '0192f0c4-5a1e-7c3b-9d2e-3f4a5b6c7d8e']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('404 delivery_not_found');
  });
});

describe('svc-webhooks recover', () => {
  it('has the host replay the failed deliveries of the window and follows the recovery to its end', async () => {
    await configure(['job_cancelled']);
    receiver.respond(() => ({ status: 500 }));
    const ids: string[] = [];
    for (const jobNumber of [1, 2, 3]) {
      const emitted = await host.service.emit({
        agencyId: 'agency-1',
        eventType: 'job_cancelled',
        entityId: `job-${jobNumber}`,
        metadata: { jobId: `job-${jobNumber}`, agencyId: 'agency-1', jobNumber, reason: 'Duplicate request' },
      });
      ids.push(emitted?.deliveryId ?? '');
    }
    await vi.waitFor(
      async () => {
        const failed = await host.service.listDeliveries('agency-1', { status: 'failed' });
        expect(failed.deliveries).toHaveLength(3);
      },
      { timeout: 10_000, interval: 20 },
    );
    receiver.respond(() => ({ status: 204, body: '' }));

    const dryRun = await cli(['recover', '--since', '1h', '--dry-run']);
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toBe('3 failed deliveries match. Run again without --dry-run to replay them.\n');
    const run = await cli(['recover', '--since', '1h', '--interval', '20']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^Recovery \S+ started: 3 failed deliveries to replay\.\nRecovery \S+ completed: 3 of 3 replayed\.\n$/,
    );
    for (const id of ids) {
      await vi.waitFor(
        async () => expect((await host.service.getDelivery('agency-1', id)).status).toBe('success'),
        { timeout: 10_000, interval: 20 },
      );
    }
  });
});

describe('svc-webhooks recoveries', () => {
  it('lists the agency’s recoveries newest first, a page at a time, as the host answers them', async () => {
    await configure(['job_cancelled']);
    const since = Date.UTC(2026, 0, 1, 8);
    const ids: string[] = [];
    for (const offset of [0, 1, 2]) {
      const { recoveryId } = await host.service.recoverDeliveries('agency-1', {
        since: since + offset,
        until: since + 3_600_000,
      });
      ids.push(recoveryId);
      await vi.waitFor(
        async () => expect((await host.service.getRecovery('agency-1', recoveryId)).status).toBe('completed'),
        { timeout: 10_000, interval: 20 },
      );
    }

    const first = await cli(['recoveries', '--limit', '2']);
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      new RegExp(
        `^${ids[2]}  completed  0 of 0 replayed  2026-01-01T08:00:00\\.002Z to 2026-01-01T09:00:00\\.000Z  all event types  started \\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z$`,
      ),
    );
    expect(lines[1]?.startsWith(`${ids[1]}  completed`)).toBe(true);
    const more = /^More: svc-webhooks recoveries --cursor (\S+)$/.exec(lines[2] ?? '');
    expect(more).not.toBeNull();

    const rest = await cli(['recoveries', '--limit', '2', '--cursor', more?.[1] ?? '', '--json']);
    expect(rest.code, rest.stderr).toBe(0);
    const page = JSON.parse(rest.stdout) as { recoveries: Array<{ id: string }>; nextCursor: string | null };
    expect(page.recoveries.map((recovery) => recovery.id)).toEqual([ids[0]]);
    expect(page.nextCursor).toBeNull();
  });

  it('says so when no recovery has run, and refuses a --limit the API would', async () => {
    const none = await cli(['recoveries']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe('No bulk recovery has run for this agency.\n');
    const tooMany = await cli(['recoveries', '--limit', '101']);
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toContain('--limit takes 1 to 100; got 101.');
  });
});
