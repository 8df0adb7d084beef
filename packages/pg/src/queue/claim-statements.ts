import { DELIVERY_COLUMNS } from '../delivery-row';
import type { SchemaName } from '../schema/schema-name';
import { type Statement, statement } from '../statement';

/*
 * The fair claim, one statement. Parameters: $1 now, $2 limit, $3 excluded
 * agencies, $4 lease ms, $5 the rotation cursor (the agency served last; ''
 * before the first claim), $6 the per-agency cap (null: none), $7 how many
 * entries one agency may give (the rounds this statement may go; see
 * PgDeliveryQueue). It returns the claimed rows; the caller works out from their
 * agencies where the rotation stands. docs/postgres.md walks through the SQL.
 */

/*
 * Parameters are read through one-row subqueries. The planner then cannot use
 * their values, so the plans it makes for the first executions of the prepared
 * statement cost what the generic plan costs, and it settles on the generic plan
 * instead of planning this long statement again on every call (figures in
 * docs/postgres.md, "Fair claims"). Each subquery is an InitPlan the executor
 * sets up on every call, so `now` and the cursor travel in the rows instead of
 * being read again at every step.
 */
const NOW = '(SELECT $1::bigint)';
const LIMIT = '(SELECT $2::int)';
const EXCLUDED = '(SELECT $3::text[])::text[]';
const LEASE_MS = '(SELECT $4::bigint)';
const CURSOR = '(SELECT $5::text)';
const CAP = '(SELECT $6::int)';
const PER_AGENCY = '(SELECT $7::int)';

/** How many claimable entries past `limit` the head reads to tell a little due work from a backlog. */
const HEAD_SLACK = 32;

/** Not under a live lease (an expired lease counts as none), as of `now`. */
const unleased = (now: string) => `(lease_until IS NULL OR lease_until <= ${now})`;

/*
 * `agencies`: which agencies the claim looks at, in rotation order (`lap`: 0
 * after the cursor, 1 from the start up to it; then agency_id). Round robin
 * takes agencies in the order this yields them, so every branch yields them in
 * rotation order.
 *
 * `head` reads up to `limit + HEAD_SLACK` of the earliest claimable entries from
 * the due index. When that is all there is (`sparse`), the agencies come from
 * them and nothing else is read: the usual case while the workers keep up.
 *
 * Otherwise the claim walks `webhook_deliveries_agency_due_idx` as a ring: a
 * loose index scan, one descent per agency holding queue entries, from the
 * cursor to the last agency (`after`), then from the first agency up to the
 * cursor (`before`, read only if `after` ran out). Each step also returns the
 * agency's earliest entry, which is usually the one the claim takes. Both walks
 * are evaluated lazily: `picks` stops pulling agencies once `limit` of them
 * gave entries, so a claim visits about `limit` agencies plus those it passes
 * over (nothing due, excluded, at their cap), whatever their backlogs.
 */
function agenciesSql(table: string): string {
  const walk = (name: string, lap: number, start: string, upTo: (cursor: string) => string) => {
    const step = (where: string) =>
      `SELECT agency_id, run_at, ctid, lease_until FROM ${table}
        WHERE run_at IS NOT NULL AND ${where} ORDER BY agency_id, run_at LIMIT 1`;
    return `${name} (agency_id, first_run_at, first_entry, first_lease_until, lap, now, cursor) AS (
    SELECT earliest.*, ${lap}, ${NOW}, ${CURSOR} FROM (${step(start + upTo(CURSOR))}) AS earliest
     WHERE NOT (SELECT yes FROM sparse)
    UNION ALL
    SELECT earliest.*, ${name}.lap, ${name}.now, ${name}.cursor
      FROM ${name} CROSS JOIN LATERAL (
        ${step(`agency_id > ${name}.agency_id${upTo(`${name}.cursor`)}`)}
      ) AS earliest
  )`;
  };
  const walked = (name: string) =>
    `SELECT agency_id, first_run_at, first_entry,
            first_run_at <= now AND (first_lease_until IS NULL OR first_lease_until <= now), lap, now
       FROM ${name}`;
  return `head AS (
    SELECT agency_id, run_at FROM ${table}
     WHERE run_at <= ${NOW} AND ${unleased(NOW)} ORDER BY run_at LIMIT ${LIMIT} + ${HEAD_SLACK}
  ),
  sparse AS (SELECT count(*) < ${LIMIT} + ${HEAD_SLACK} AS yes FROM head),
  ${walk('after', 0, `agency_id > ${CURSOR}`, () => '')},
  ${walk('before', 1, "agency_id >= ''", (cursor) => ` AND agency_id <= ${cursor}`)},
  agencies (agency_id, first_run_at, first_entry, first_claimable, lap, now) AS (
    (SELECT agency_id, min(run_at), NULL::tid, false, (agency_id <= ${CURSOR})::int AS lap, ${NOW}
       FROM head WHERE (SELECT yes FROM sparse) GROUP BY agency_id ORDER BY lap, agency_id)
    UNION ALL
    ${walked('after')}
    UNION ALL
    ${walked('before')}
  )`;
}

/*
 * `picks`: what each agency gives, earliest first: its claimable entries among
 * its first `cap` due entries (all of them without a cap), at most $7 of them.
 * Claims take the earliest claimable entries, so the live leases of an agency
 * sit among its first `cap` due entries, and every claimable entry there can be
 * taken without passing the cap: leases + taken never exceed the entries read.
 * docs/postgres.md says when an entry due earlier than a live lease can push
 * one out.
 *
 * When one entry per agency is wanted and the ring step already read a
 * claimable earliest entry, that is the pick, without another descent. The
 * agency is matched as a range and ordered by (agency_id, run_at) so that only
 * the agency index can serve the read: with `agency_id = x` the planner may walk
 * the due index in run_at order instead, through every other agency's due
 * entries (it did in the tests, having planned with few agencies). `OFFSET 0`
 * keeps the planner from copying the subquery into the WHERE, which would run it
 * twice.
 *
 * `chosen` goes round by round (the entry's place in its agency's picks), each
 * round in rotation order.
 */
function picksSql(table: string): string {
  return `picks AS (
    SELECT agencies.agency_id, agencies.lap, picked.entries
      FROM agencies CROSS JOIN LATERAL (
        SELECT CASE WHEN agencies.first_claimable AND ${PER_AGENCY} = 1 THEN ARRAY[agencies.first_entry]
               ELSE ARRAY(
                 SELECT ctid FROM (
                   SELECT ctid, lease_until FROM ${table}
                    WHERE agency_id >= agencies.agency_id AND agency_id <= agencies.agency_id
                      AND run_at <= agencies.now
                    ORDER BY agency_id, run_at LIMIT ${CAP}
                 ) AS due WHERE ${unleased('agencies.now')} LIMIT ${PER_AGENCY})
               END AS entries
        OFFSET 0
      ) AS picked
     WHERE agencies.first_run_at <= agencies.now AND agencies.agency_id <> ALL (${EXCLUDED})
       AND cardinality(picked.entries) > 0
     LIMIT ${LIMIT}
  ),
  chosen AS (
    SELECT entry.row
      FROM picks CROSS JOIN LATERAL unnest(picks.entries) WITH ORDINALITY AS entry(row, round)
     ORDER BY entry.round, picks.lap, picks.agency_id
     LIMIT ${LIMIT}
  )`;
}

/*
 * The picks are read without locks; only the `limit` chosen are locked. SKIP
 * LOCKED lets concurrent claimers take disjoint entries instead of waiting, and
 * re-checks each row's claimability on its latest version, so a row another
 * claimer took after this statement's snapshot is dropped rather than claimed
 * twice. Under a cap, concurrent claimers that see the same entries choose
 * prefixes of the same claimable ones, so together they take no more.
 *
 * Rows are carried by ctid, which the index entries already hold: locking and
 * updating by ctid reads each row directly instead of descending the primary
 * key twice per row (the row versions this statement saw cannot be pruned while
 * it runs, and the lock follows a row updated since to its latest version).
 *
 * The update writes only `claim_id` and `lease_until`, which no index covers, so
 * (with the table's fillfactor leaving room on the page) it is a HOT update.
 */
function claimSql(table: string): string {
  return `WITH RECURSIVE ${agenciesSql(table)},
  ${picksSql(table)},
  locked AS (
    SELECT ctid AS row FROM ${table}
     WHERE ctid = ANY (ARRAY(SELECT row FROM chosen)) AND run_at <= ${NOW} AND ${unleased(NOW)}
     FOR UPDATE SKIP LOCKED
  )
  UPDATE ${table} AS d
     SET claim_id = gen_random_uuid()::text, lease_until = ${NOW} + ${LEASE_MS}
    FROM locked
   WHERE d.ctid = locked.row
  RETURNING ${qualified('d', DELIVERY_COLUMNS)}, d.claim_id, d.run_at, d.lease_until`;
}

/** `a, b` → `d.a, d.b` */
function qualified(alias: string, columns: string): string {
  return columns
    .split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');
}

/** The claim statement of a schema (see the comments above for its parameters). */
export function claimStatement(schema: SchemaName): Statement {
  return statement(claimSql(`${schema.quoted}.webhook_deliveries`));
}
