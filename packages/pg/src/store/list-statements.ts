import type { CountDeliveriesFilter, ListDeliveriesOptions } from '@svc/webhooks-core';
import { DELIVERY_COLUMNS } from '../delivery-row';
import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';

/** A condition of the WHERE clause: the option that carries it and its condition, the parameter's number left out. */
type Condition = readonly [keyof ListDeliveriesOptions, string];

/**
 * The filters of a list or count, in the order their parameters follow the
 * statement's own (the agency id, and the list's limit). Each filter is a plain
 * condition of its own, never `($n IS NULL OR …)`: then every combination is its
 * own statement with its own plan, and a generic plan of a prepared statement
 * cannot lose an index to a filter it does not use (version 3's migration says
 * which index serves which).
 */
const FILTERS: readonly Condition[] = [
  ['status', 'status = '],
  ['eventType', 'event_type = '],
  ['entityId', 'entity_id = '],
  ['createdSince', 'created_at >= '],
  ['createdBefore', 'created_at < '],
];

/** The list's keyset cursor: a count has none, even when handed a list's options. */
const CURSOR: Condition = ['beforeId', 'id < '];

/** Picks the statement and its parameters for one list request. */
export type ListStatementPicker = (
  agencyId: string,
  options: ListDeliveriesOptions,
) => [Statement, unknown[]];

/** Picks the statement and its parameters for one count; its one row's `matched` is the count. */
export type CountStatementPicker = (
  agencyId: string,
  filter: CountDeliveriesFilter,
) => [Statement, unknown[]];

/**
 * The list statements of a schema, built on first use: one per combination of
 * filters (at most 2^6), newest first, `LIMIT $2`. A combination's text, and so
 * its prepared statement's name, is always the same.
 */
export function listStatements(schema: SchemaName): ListStatementPicker {
  const table = `${schema.quoted}.webhook_deliveries`;
  const pick = statementsByCondition(
    [...FILTERS, CURSOR],
    (where) => `SELECT ${DELIVERY_COLUMNS} FROM ${table} WHERE ${where} ORDER BY id DESC LIMIT $2`,
  );
  return (agencyId, options) => pick([agencyId, options.limit], options);
}

/**
 * The count statements of a schema: the list's WHERE clause for the same
 * filters, so the index that serves a list serves its count (the range-filtered
 * `created_at` is a key of each list index: counting a window reads no row). The
 * store sends them unprepared (see its `countDeliveries`).
 */
export function countStatements(schema: SchemaName): CountStatementPicker {
  const table = `${schema.quoted}.webhook_deliveries`;
  const pick = statementsByCondition(
    FILTERS,
    (where) => `SELECT count(*) AS matched FROM ${table} WHERE ${where}`,
  );
  return (agencyId, filter) => pick([agencyId], filter);
}

/**
 * Builds the statement of each combination of `conditions` once: `agency_id = $1`
 * and the conditions whose option is set, their parameters after `leading`.
 */
function statementsByCondition(
  conditions: readonly Condition[],
  text: (where: string) => string,
): (leading: unknown[], options: Partial<ListDeliveriesOptions>) => [Statement, unknown[]] {
  const built = new Map<number, Statement>();
  return (leading, options) => {
    const values = [...leading];
    const where = ['agency_id = $1'];
    let combination = 0;
    conditions.forEach(([option, condition], bit) => {
      const value = options[option];
      if (value === undefined) return;
      combination |= 1 << bit;
      values.push(value);
      where.push(`${condition}$${values.length}`);
    });
    let stmt = built.get(combination);
    if (!stmt) {
      stmt = statement(text(where.join(' AND ')));
      built.set(combination, stmt);
    }
    return [stmt, values];
  };
}
