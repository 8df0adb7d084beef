import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RecoveryServer, startRecoveryServer } from './recovery-server';
import { runBin } from './run-cli';

/*
 * `recover` against a local server implementing the bulk-recovery contract (recovery-server.ts), whose
 * recoveries advance one replay per read: the progress output is then exact. The example host's real
 * endpoints are exercised in management.test.ts.
 */

const HOUR = 3_600_000;
let server: RecoveryServer;
let now: number;

beforeEach(async () => {
  now = Date.now();
  server = await startRecoveryServer('tok_owner', [
    { createdAt: now - 2 * HOUR, eventType: 'job_created' },
    { createdAt: now - 3 * HOUR, eventType: 'job_cancelled' },
    { createdAt: now - 5 * HOUR, eventType: 'job_created' },
    { createdAt: now - 48 * HOUR, eventType: 'job_created' },
  ]);
});
afterEach(() => server.close());

function recover(...args: string[]) {
  return runBin(['recover', '--interval', '1', ...args], {
    env: { SVC_WEBHOOKS_API: server.api, SVC_WEBHOOKS_TOKEN: 'tok_owner' },
  });
}

describe('svc-webhooks recover', () => {
  it('--dry-run prints how many failed deliveries the window matches, and starts nothing', async () => {
    const run = await recover('--since', '24h', '--dry-run');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('3 failed deliveries match. Run again without --dry-run to replay them.\n');
    expect(server.requests).toEqual([{ since: expect.any(Number), dryRun: true }]);
    // 24h before the moment the CLI ran, which lies between `now` and this line.
    const since = (server.requests[0] as { since: number }).since;
    expect(since).toBeGreaterThanOrEqual(now - 24 * HOUR);
    expect(since).toBeLessThanOrEqual(Date.now() - 24 * HOUR);
  });

  it('starts a recovery, shows its progress, and ends when it completes', async () => {
    const run = await recover('--since', '24h');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      'Recovery rec_1 started: 3 failed deliveries to replay.\nRecovery rec_1 completed: 3 of 3 replayed.\n',
    );
    // Not a terminal: one line per step instead of a redrawn bar.
    expect(run.stderr).toBe('1/3 replayed\n2/3 replayed\n3/3 replayed\n');
  });

  it('sends the window and the event types the options name', async () => {
    const run = await recover(
      '--since',
      new Date(now - 4 * HOUR).toISOString(),
      '--until',
      String(now - HOUR),
      '--event-type',
      'job_created',
      '--event-type',
      'quote_approved',
      '--json',
    );
    expect(run.code).toBe(0);
    expect(server.requests).toEqual([
      {
        since: now - 4 * HOUR,
        until: now - HOUR,
        eventTypes: ['job_created', 'quote_approved'],
      },
    ]);
    expect(JSON.parse(run.stdout)).toMatchObject({
      id: 'rec_1',
      status: 'completed',
      matched: 1,
      replayed: 1,
    });
    expect(run.stderr).toBe('');
  });

  it('--no-wait returns once the recovery has started', async () => {
    const run = await recover('--since', '7d', '--no-wait', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ recoveryId: 'rec_1', matched: 4 });
  });

  it('exits 1 when the recovery is cancelled before it completes', async () => {
    server.cancelAfter = 1;
    const run = await recover('--since', '24h');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Recovery rec_1 cancelled: 1 of 3 replayed.');
  });

  it('exits 4 with recovery_in_progress while another recovery runs', async () => {
    expect((await recover('--since', '24h', '--no-wait')).code).toBe(0);
    const run = await recover('--since', '24h');
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('POST /deliveries/recover answered 409 recovery_in_progress');
  });

  it('exits 4 and says so when the host does not serve the bulk-recovery endpoints', async () => {
    const run = await runBin(['recover', '--since', '24h'], {
      env: { SVC_WEBHOOKS_API: server.api.replace('/v1/', '/v0/'), SVC_WEBHOOKS_TOKEN: 'tok_owner' },
    });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('answered 404 not_found');
    expect(run.stderr).toContain('does not serve the bulk-recovery endpoints');
  });

  it('exits 2 for a time it cannot read, before any request', async () => {
    const run = await recover('--since', '1767225600');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('looks like epoch seconds');
    expect(server.requests).toEqual([]);
  });
});
