import { WebhookValidationError } from '../errors';

/**
 * Cursors are opaque to API users: the base64url of the last delivery id of a
 * page. Opaque so that the paging key can change later without breaking clients.
 */
const CURSOR_VERSION = 'v1:';

/** The cursor that continues a list after the delivery `lastId`. */
export function encodeListCursor(lastId: string): string {
  return Buffer.from(CURSOR_VERSION + lastId, 'utf8').toString('base64url');
}

/** The delivery id a cursor continues after; a cursor this library did not make is a validation error. */
export function decodeListCursor(cursor: string): string {
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = decoded.startsWith(CURSOR_VERSION) ? decoded.slice(CURSOR_VERSION.length) : '';
  if (!/^[0-9a-f-]{36}$/.test(id)) {
    throw new WebhookValidationError('The cursor is not valid; pass the nextCursor of a previous page.', [
      { path: 'cursor', message: 'Invalid cursor' },
    ]);
  }
  return id;
}

/**
 * One page of a newest-first list, read with one row more than `limit`: that extra
 * row tells whether another page exists without a count query.
 */
export function toListPage<Row extends { id: string }, View>(
  rows: readonly Row[],
  limit: number,
  view: (row: Row) => View,
): { items: View[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(view),
    nextCursor: rows.length > limit && last ? encodeListCursor(last.id) : null,
  };
}
