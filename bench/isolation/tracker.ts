import type { WebhookHooks } from '@svc/webhooks-core';

/** What one measurement's hooks saw. */
export interface Tracker {
  hooks: WebhookHooks;
  /** Resolves when every healthy delivery has been recorded as delivered. */
  allHealthyDelivered: Promise<void>;
  /** Healthy deliveries recorded as delivered so far. */
  delivered(): number;
  /** `performance.now()` of the first healthy delivery recorded; null before it. */
  firstDeliveredAt(): number | null;
  /** `performance.now()` of the last healthy delivery recorded. */
  lastDeliveredAt(): number;
  /** The hanging agencies' attempts: how long each took, and how each ended (error kind, or `ok`). */
  hangingAttempts: { durationsMs: number[]; endings: Map<string, number> };
  /** The healthy agencies' attempts that failed, by error kind (a healthy receiver should never fail one). */
  healthyFailures: Map<string, number>;
  /** Store or queue failures the worker reported, by stage. */
  workerErrors: Map<string, number>;
}

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** Hooks that time the healthy agencies' deliveries and describe every other attempt. */
export function createTracker(hanging: ReadonlySet<string>, healthyExpected: number): Tracker {
  let delivered = 0;
  let firstAt: number | null = null;
  let lastAt = 0;
  let resolveAll: () => void = () => {};
  const allHealthyDelivered = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  const tracker: Tracker = {
    allHealthyDelivered,
    delivered: () => delivered,
    firstDeliveredAt: () => firstAt,
    lastDeliveredAt: () => lastAt,
    hangingAttempts: { durationsMs: [], endings: new Map() },
    healthyFailures: new Map(),
    workerErrors: new Map(),
    hooks: {
      onDelivered: (delivery) => {
        if (hanging.has(delivery.agencyId)) return;
        lastAt = performance.now();
        firstAt ??= lastAt;
        if (++delivered === healthyExpected) resolveAll();
      },
      onAttempt: ({ delivery, outcome }) => {
        if (hanging.has(delivery.agencyId)) {
          tracker.hangingAttempts.durationsMs.push(outcome.durationMs);
          bump(tracker.hangingAttempts.endings, outcome.errorKind ?? 'ok');
        } else if (!outcome.ok) {
          bump(tracker.healthyFailures, outcome.errorKind ?? 'unknown');
        }
      },
      onError: (_error, { stage }) => bump(tracker.workerErrors, stage),
    },
  };
  return tracker;
}
