import type { SignatureScheme, SigningKeyRecord, WebhookConfigRecord } from '@svc/webhooks-core';
import { signingKeysJson } from '@svc/webhooks-core/adapter-kit';
import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';

/*
 * The configurations table of one schema: its row as node-postgres returns it,
 * the record that row holds, and the store's SQL on it.
 */

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
  disabled_at: string | null;
  disabled_reason: string | null;
  signature_scheme: SignatureScheme;
  /** The jsonb column as text (see {@link CONFIG_COLUMNS}). */
  signing_keys: string;
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
    disabledAt: row.disabled_at === null ? null : Number(row.disabled_at),
    disabledReason: row.disabled_reason,
    signatureScheme: row.signature_scheme,
    signingKeys: JSON.parse(row.signing_keys) as SigningKeyRecord[],
  };
}

/**
 * The `signing_keys` parameter: the keys' own fields as JSON (a caller's extra
 * properties are never stored), or null for "not given" where the statement
 * keeps or defaults the column.
 */
export function signingKeysParam(keys: readonly SigningKeyRecord[] | undefined): string | null {
  return keys === undefined ? null : signingKeysJson(keys);
}

/** The store's SQL on the configurations table of one schema. */
export interface ConfigStatements {
  get: Statement;
  getMany: Statement;
  /**
   * Creates or updates; $8 scheme and $9 keys (JSON) keep the stored value when null
   * (`'service'` and `[]` on create).
   */
  upsert: Statement;
  setSecret: Statement;
  /** `setSecret` only while the stored secret equals $4 (compare-and-set). */
  setSecretIf: Statement;
  /** Replaces the key list ($2, JSON) and `updated_at` ($3), nothing else. */
  setSigningKeys: Statement;
  /** The first page of every configuration, by agency id ("C" collation: byte order, the primary key's). */
  listFirst: Statement;
  /** The page after agency id $1. */
  listAfter: Statement;
  remove: Statement;
  /** Disables while enabled and `updated_at` = $4 (compare-and-set): $2 reason, $3 now. */
  disable: Statement;
}

/** The columns a create writes, in the order of its parameters. */
const INSERT_COLUMNS =
  'id, agency_id, webhook_url, signing_secret, enabled, subscribed_event_types, created_at, updated_at';

/**
 * The configuration's columns, in the order every SELECT and RETURNING lists them.
 * `signing_keys` comes back as text and is parsed here, whatever type parser the
 * host installed for jsonb on its pg module.
 */
const CONFIG_COLUMNS = `${INSERT_COLUMNS}, disabled_at, disabled_reason, signature_scheme, signing_keys::text AS signing_keys`;

/** Builds the statements for a schema. */
export function configStatements(schema: SchemaName): ConfigStatements {
  const table = `${schema.quoted}.webhook_configs`;
  return {
    get: statement(`SELECT ${CONFIG_COLUMNS} FROM ${table} WHERE agency_id = $1`),
    getMany: statement(`SELECT ${CONFIG_COLUMNS} FROM ${table} WHERE agency_id = ANY ($1::text[])`),
    // One atomic statement, so two concurrent first PUTs make one configuration.
    // `xmax = 0` holds only for a row version this statement inserted (an
    // updated version carries the updating transaction's id), which is how the
    // caller learns whether it created the configuration.
    // The scheme and the keys are optional: null ($8, $9) keeps the stored value on
    // update, and writes 'service' and [] (the columns' defaults) on create.
    upsert: statement(
      `INSERT INTO ${table} AS c (${INSERT_COLUMNS}, signature_scheme, signing_keys)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, COALESCE($8::text, 'service'), COALESCE($9::jsonb, '[]'))
       ON CONFLICT (agency_id) DO UPDATE
         SET webhook_url = EXCLUDED.webhook_url, enabled = EXCLUDED.enabled,
             subscribed_event_types = EXCLUDED.subscribed_event_types, updated_at = EXCLUDED.updated_at,
             disabled_at = NULL, disabled_reason = NULL,
             signature_scheme = COALESCE($8::text, c.signature_scheme),
             signing_keys = COALESCE($9::jsonb, c.signing_keys)
       RETURNING ${CONFIG_COLUMNS}, (c.xmax = 0) AS created`,
    ),
    // Keeps enabled and the disabled fields: a key write never re-enables an endpoint.
    setSigningKeys: statement(
      `UPDATE ${table} SET signing_keys = $2::jsonb, updated_at = $3
       WHERE agency_id = $1 RETURNING ${CONFIG_COLUMNS}`,
    ),
    setSecret: statement(
      `UPDATE ${table} SET signing_secret = $2, updated_at = $3 WHERE agency_id = $1 RETURNING ${CONFIG_COLUMNS}`,
    ),
    // Under READ COMMITTED a concurrent writer's UPDATE waits for this row's lock, then
    // re-checks the WHERE against the committed version: of two, one matches.
    setSecretIf: statement(
      `UPDATE ${table} SET signing_secret = $2, updated_at = $3
       WHERE agency_id = $1 AND signing_secret = $4 RETURNING ${CONFIG_COLUMNS}`,
    ),
    listFirst: statement(`SELECT ${CONFIG_COLUMNS} FROM ${table} ORDER BY agency_id LIMIT $1`),
    listAfter: statement(
      `SELECT ${CONFIG_COLUMNS} FROM ${table} WHERE agency_id > $1 ORDER BY agency_id LIMIT $2`,
    ),
    remove: statement(`DELETE FROM ${table} WHERE agency_id = $1`),
    // Like `setSecretIf`: a concurrent writer waits for the row lock, then re-checks
    // the WHERE against what the first one committed, so of two only one matches.
    disable: statement(
      `UPDATE ${table} SET enabled = false, disabled_at = $3, disabled_reason = $2, updated_at = $3
       WHERE agency_id = $1 AND enabled AND updated_at = $4 RETURNING ${CONFIG_COLUMNS}`,
    ),
  };
}
