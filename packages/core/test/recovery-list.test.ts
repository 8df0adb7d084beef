import { describe, expect, it } from 'vitest';
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  type Recovery,
  WebhookValidationError,
} from '../src/index';

// The recovery list through the service: what the portal's history and the
// router's GET /recoveries answer. No worker runs, so every recovery stays as
// the service left it (running, or cancelled by the test).

const NOW = 1_700_000_000_000;

function service() {
  let now = NOW;
  const webhooks = createWebhookService({
    store: createMemoryStore(),
    queue: createMemoryQueue(),
    // Each call a millisecond later, so every recovery's id and createdAt differ.
    clock: () => now++,
  });
  return webhooks;
}

/** Starts `count` recoveries one after another (each cancelled before the next), the last left running. */
async function startRecoveries(webhooks: ReturnType<typeof service>, agencyId: string, count: number) {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const { recoveryId } = await webhooks.recoverDeliveries(agencyId, { since: NOW - 86_400_000 + index });
    if (index < count - 1) await webhooks.cancelRecovery(agencyId, recoveryId);
    ids.push(recoveryId);
  }
  return ids;
}

describe('listRecoveries(agencyId, { limit, cursor })', () => {
  it('lists the agency’s recoveries newest first, as getRecovery shows each', async () => {
    const webhooks = service();
    const ids = await startRecoveries(webhooks, 'agency-a', 3);
    await startRecoveries(webhooks, 'agency-b', 1);
    await webhooks.recoverDeliveries('agency-a', { since: NOW, dryRun: true });

    const { recoveries, nextCursor } = await webhooks.listRecoveries('agency-a');
    expect(recoveries.map((recovery) => recovery.id)).toEqual([...ids].reverse());
    expect(recoveries.map((recovery) => recovery.status)).toEqual(['running', 'cancelled', 'cancelled']);
    for (const recovery of recoveries) {
      expect(recovery).toEqual(await webhooks.getRecovery('agency-a', recovery.id));
    }
    expect(nextCursor).toBeNull();
    expect((await webhooks.listRecoveries('agency-c')).recoveries).toEqual([]);
  });

  it('pages with limit and nextCursor, every recovery once', async () => {
    const webhooks = service();
    const ids = await startRecoveries(webhooks, 'agency-a', 5);
    const seen: Recovery[] = [];
    const pageSizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await webhooks.listRecoveries('agency-a', { limit: '2', cursor });
      seen.push(...page.recoveries);
      pageSizes.push(page.recoveries.length);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(pageSizes).toEqual([2, 2, 1]);
    expect(seen.map((recovery) => recovery.id)).toEqual([...ids].reverse());
  });

  it('a full last page has no next cursor', async () => {
    const webhooks = service();
    await startRecoveries(webhooks, 'agency-a', 2);
    expect((await webhooks.listRecoveries('agency-a', { limit: 2 })).nextCursor).toBeNull();
  });

  it.each([
    ['limit 0', { limit: 0 }, 'limit'],
    ['limit 101', { limit: 101 }, 'limit'],
    ['a limit not in plain digits', { limit: '1e1' }, 'limit'],
    ['a cursor this library did not make', { cursor: 'bm90LWEtY3Vyc29y' }, 'cursor'],
    ['an unknown parameter', { status: 'running' }, ''],
  ])('refuses %s with a validation error', async (_name, query, path) => {
    const webhooks = service();
    await startRecoveries(webhooks, 'agency-a', 1);
    const error = await webhooks
      .listRecoveries('agency-a', query as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookValidationError);
    expect((error as WebhookValidationError).details.issues.map((issue) => issue.path)).toContain(path);
  });
});
