/** Epoch ms as the reader's local date and time; an em dash for none. */
export function formatTime(epochMs: number | null | undefined): string {
  if (epochMs === null || epochMs === undefined) return '—';
  return new Date(epochMs).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/**
 * Epoch ms as the reader's local date and clock time apart, for a narrow column that may put them on two
 * lines rather than break inside either.
 */
export function formatTimeParts(epochMs: number): { date: string; time: string } {
  const date = new Date(epochMs);
  return {
    date: date.toLocaleDateString(undefined, { dateStyle: 'medium' }),
    time: date.toLocaleTimeString(undefined, { timeStyle: 'medium' }),
  };
}

/** A duration in ms as `850 ms` or `1.2 s`. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The value of an `<input type="datetime-local">` as epoch ms, or null when empty or invalid. */
export function parseLocalDateTime(value: string): number | null {
  if (value === '') return null;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? null : ms;
}

/** Epoch ms as an `<input type="datetime-local">` value in local time. */
export function toLocalDateTimeInput(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
