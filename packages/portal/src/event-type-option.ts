import type { EventTypeSummary } from '@svc/webhooks-core';

/** An event type as the views offer it: its name, what it means, its entity type. */
export type EventTypeOption = EventTypeSummary;
