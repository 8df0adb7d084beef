/**
 * Parses an HTTP `Retry-After` value into a wait in ms from `now`.
 *
 * Accepts delta-seconds (`120`) and an HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`);
 * a date in the past gives 0. Anything else gives null (the header is then ignored
 * and the normal retry schedule applies). No cap is applied here; the retry
 * policy decides how long a receiver may push a retry back.
 *
 * @param value - the header value; an array (repeated header) uses the first one
 * @param now - epoch ms the header is relative to
 * @example
 * ```ts
 * parseRetryAfter('30', Date.now()); // 30000
 * ```
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return null;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  // Date.parse also takes loose forms like "2015"; an HTTP-date always names a weekday or month in letters.
  if (!/[a-z]/i.test(raw)) return null;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}
