import { type Recovery, RecoveryInProgressError, type WebhookService } from '@svc/webhooks-core';

/**
 * After an agency's receiver was down from `since` to `until`: counts its failed
 * deliveries of that window, replays them with one bulk recovery (any worker walks
 * it, and another takes over if that one dies), and reports progress until it ends.
 */
export async function recoverOutage(
  webhooks: WebhookService,
  agencyId: string,
  window: { since: number; until: number },
  onProgress: (recovery: Recovery) => void,
): Promise<Recovery | null> {
  const { matched } = await webhooks.recoverDeliveries(agencyId, { ...window, dryRun: true });
  if (matched === 0) return null;
  let recoveryId: string;
  try {
    ({ recoveryId } = await webhooks.recoverDeliveries(agencyId, window));
  } catch (error) {
    // One recovery runs per agency: follow the one already running instead.
    if (!(error instanceof RecoveryInProgressError)) throw error;
    recoveryId = error.details.recoveryId;
  }
  for (;;) {
    const recovery = await webhooks.getRecovery(agencyId, recoveryId);
    onProgress(recovery);
    if (recovery.status !== 'running') return recovery;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
