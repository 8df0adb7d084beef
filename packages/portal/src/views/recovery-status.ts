import type { Recovery } from '@svc/webhooks-core';
import { html } from 'lit';

const STATUS_LABELS: Record<Recovery['status'], string> = {
  running: 'Running',
  completed: 'Completed',
  cancelled: 'Cancelled',
};
// The theme has badge colours for delivery and endpoint states; a recovery borrows the closest ones.
const STATUS_BADGES: Record<Recovery['status'], string> = {
  running: 'pending',
  completed: 'success',
  cancelled: 'disabled',
};

/** A recovery's status in words, such as `Completed`. */
export function recoveryStatusLabel(status: Recovery['status']): string {
  return STATUS_LABELS[status];
}

/** A recovery's status as the badge the progress and the history both show. */
export function recoveryStatusBadge(status: Recovery['status']) {
  return html`<span class="badge ${STATUS_BADGES[status]}" part="badge">${STATUS_LABELS[status]}</span>`;
}
