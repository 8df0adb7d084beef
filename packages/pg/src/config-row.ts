import type { WebhookConfigRecord } from '@svc/webhooks-core';

/** A configuration row as node-postgres returns it (bigint as string). */
export interface ConfigRow {
  id: string;
  agency_id: string;
  webhook_url: string;
  signing_secret: string;
  enabled: boolean;
  subscribed_event_types: string[];
  created_at: string;
  updated_at: string;
}

/** The record a row holds. */
export function toConfigRecord(row: ConfigRow): WebhookConfigRecord {
  return {
    id: row.id,
    agencyId: row.agency_id,
    webhookUrl: row.webhook_url,
    signingSecret: row.signing_secret,
    enabled: row.enabled,
    subscribedEventTypes: row.subscribed_event_types,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
