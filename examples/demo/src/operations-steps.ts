import { type ApiAnswer, waitUntil } from './api-client';
import { type DemoContext, emit } from './demo-steps';
import { check, detail, section } from './report';
import { jobCancelled } from './sample-events';

const API = '/v1/agency/webhooks';

/**
 * Operating it: a delivery's attempt history, the endpoint's health while the receiver
 * refuses, and a bulk recovery of the deliveries that failed meanwhile.
 */
export async function operateDeliveries(ctx: DemoContext, replayedId: string): Promise<void> {
  section('5. Attempt history, endpoint health and a bulk recovery');
  const history = await ctx.api('GET', `${API}/deliveries/${replayedId}/attempts`);
  const triggers: string[] = history.body.attempts.map((attempt: { trigger: string }) => attempt.trigger);
  check(
    history.status === 200 &&
      triggers.join(',') === 'automatic,automatic,automatic,automatic,automatic,replay' &&
      history.body.attempts[0].responseCode === 503,
    `GET /deliveries/${replayedId}/attempts → 6 attempts: 5 automatic (503), then the replay (204)`,
    history.body,
  );

  ctx.receiver.answer((envelope) => (envelope.eventType === 'job_cancelled' ? 503 : null));
  detail('the receiver answers 503 to job_cancelled again: an outage');
  const since = Date.now();
  const ids = [await emit(ctx, jobCancelled(ctx.agencyId)), await emit(ctx, jobCancelled(ctx.agencyId))];
  for (const id of ids) {
    await waitUntil(
      () => ctx.api('GET', `${API}/deliveries/${id}`),
      (answer) => answer.body.status === 'failed',
      `${id} to fail`,
    );
  }
  const failing = await ctx.api('GET', `${API}/config/health`);
  check(
    failing.status === 200 && failing.body.state === 'failing' && failing.body.consecutiveFailures >= 10,
    `GET /config/health → failing, ${failing.body.consecutiveFailures} attempts in a row without a 2xx`,
    failing.body,
  );

  ctx.receiver.answer(() => null);
  detail('the receiver is fixed; recover every failed delivery since the outage began');
  const until = Date.now();
  const dryRun = await ctx.api('POST', `${API}/deliveries/recover`, { body: { since, until, dryRun: true } });
  check(
    dryRun.status === 200 && dryRun.body.matched === 2,
    'POST /deliveries/recover with dryRun → 200 { matched: 2 }',
    dryRun.body,
  );
  const started = await ctx.api('POST', `${API}/deliveries/recover`, { body: { since, until } });
  check(
    started.status === 202 && started.body.matched === 2,
    `POST /deliveries/recover → 202, recovery ${started.body.recoveryId}`,
    started.body,
  );
  const done: ApiAnswer = await waitUntil(
    () => ctx.api('GET', `${API}/recoveries/${started.body.recoveryId}`),
    (answer) => answer.body.status !== 'running',
    'the recovery to complete',
  );
  check(
    done.body.status === 'completed' && done.body.replayed === 2,
    'GET /recoveries/:id → completed, 2 of 2 replayed',
    done.body,
  );
  const past = await ctx.api('GET', `${API}/recoveries`);
  const newest = (past.body.recoveries as Array<{ id: string; status: string }> | undefined)?.[0];
  check(
    past.status === 200 &&
      newest !== undefined &&
      newest.id === started.body.recoveryId &&
      newest.status === 'completed',
    'GET /recoveries → the agency’s recoveries, newest first: this one, completed',
    past.body,
  );
  for (const id of ids) {
    await waitUntil(
      () => ctx.api('GET', `${API}/deliveries/${id}`),
      (answer) => answer.body.status === 'success',
      `${id} to succeed`,
    );
  }
  const healthy = await ctx.api('GET', `${API}/config/health`);
  check(
    healthy.body.state === 'healthy' && healthy.body.consecutiveFailures === 0,
    'both delivered at their recovery attempt; GET /config/health → healthy again',
    healthy.body,
  );
}
