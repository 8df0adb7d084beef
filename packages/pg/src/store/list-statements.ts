import type { ListDeliveriesOptions } from '@svc/webhooks-core';
import { DELIVERY_COLUMNS } from '../delivery-row';
import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';

/** A filter of the list: the option that carries it and its condition, the parameter's number left out. */
type ListFilter = readonly [keyof ListDeliveriesOptions, string];

/**
 * The optional conditions, in the order their parameters follow `$1` (agency id)
 * and `$2` (limit). Each filter is a plain condition of its own, never
 * `($n IS NULL OR …)`: then every combination is its own statement with its own
 * plan, and a generic plan of a prepared statement cannot lose an index to a
 * filter it does not use (version 3's migration says which index serves which).
 */
const FILTERS: readonly ListFilter[] = [
  ['status', 'status = '],
  ['eventType', 'event_type = '],
  ['entityId', 'entity_id = '],
  ['createdSince', 'created_at >= '],
  ['createdBefore', 'created_at < '],
  ['beforeId', 'id < '],
];

/** Picks the statement and its parameters for one list request. */
export type ListStatementPicker = (
  agencyId: string,
  options: ListDeliveriesOptions,
) => [Statement, unknown[]];

/**
 * The list statements of a schema, built on first use: one per combination of
 * filters (at most 2^6), newest first, `LIMIT $2`. A combination's text, and so
 * its prepared statement's name, is always the same.
 */
export function listStatements(schema: SchemaName): ListStatementPicker {
  const table = `${schema.quoted}.webhook_deliveries`;
  const built = new Map<number, Statement>();
  return (agencyId, options) => {
    const values: unknown[] = [agencyId, options.limit];
    const conditions = ['agency_id = $1'];
    let combination = 0;
    FILTERS.forEach(([option, condition], bit) => {
      const value = options[option];
      if (value === undefined) return;
      combination |= 1 << bit;
      values.push(value);
      conditions.push(`${condition}$${values.length}`);
    });
    let stmt = built.get(combination);
    if (!stmt) {
      stmt = statement(
        `SELECT ${DELIVERY_COLUMNS} FROM ${table} WHERE ${conditions.join(' AND ')} ORDER BY id DESC LIMIT $2`,
      );
      built.set(combination, stmt);
    }
    return [stmt, values];
  };
}
