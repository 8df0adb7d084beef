import { WebhookVerificationError } from './errors';

// Epoch milliseconds passed 1e11 in 1973 and epoch seconds reach it in the year 5138, so a value below
// it next to one above it is a seconds/milliseconds mix-up, not a real clock difference.
const SECONDS_LIMIT = 1e11;

/**
 * Rejects a timestamp further than `toleranceMs` from `now`, in either direction: a delivery from the
 * future is as suspicious as an old one, and the window bounds replays both ways.
 */
export function assertWithinTolerance(timestamp: number, now: number, toleranceMs: number): void {
  const drift = now - timestamp;
  if (drift <= toleranceMs && -drift <= toleranceMs) return;
  throw new WebhookVerificationError(
    'timestamp_out_of_tolerance',
    toleranceMessage(timestamp, now, toleranceMs),
  );
}

/**
 * The same window for a Standard Webhooks `webhook-timestamp`, which is in epoch seconds: the value in
 * milliseconds is what the tolerance applies to, and a value that is itself milliseconds is named as such.
 */
export function assertStandardWithinTolerance(seconds: number, now: number, toleranceMs: number): void {
  const timestamp = seconds * 1000;
  const drift = now - timestamp;
  if (drift <= toleranceMs && -drift <= toleranceMs) return;
  throw new WebhookVerificationError(
    'timestamp_out_of_tolerance',
    seconds >= SECONDS_LIMIT
      ? `webhook-timestamp=${seconds} looks like epoch milliseconds, but Standard Webhooks carries epoch ` +
          'seconds. Deliveries from the service carry seconds; if you built these headers yourself, sign with ' +
          'Math.floor(Date.now() / 1000).'
      : toleranceMessage(timestamp, now, toleranceMs, false),
  );
}

function toleranceMessage(
  timestamp: number,
  now: number,
  toleranceMs: number,
  inMilliseconds = true,
): string {
  if (inMilliseconds && timestamp < SECONDS_LIMIT && now >= SECONDS_LIMIT) {
    return (
      `t=${timestamp} looks like epoch seconds, but t is in epoch milliseconds. Deliveries from the ` +
      'service carry milliseconds; if you built this header yourself, sign with Date.now(), not Date.now() / 1000.'
    );
  }
  if (now < SECONDS_LIMIT && timestamp >= SECONDS_LIMIT) {
    return `options.now=${now} looks like epoch seconds; pass epoch milliseconds (Date.now()).`;
  }
  const direction = timestamp < now ? 'old' : 'in the future';
  return (
    `The signature timestamp is ${Math.abs(now - timestamp)} ms ${direction}, beyond the tolerance of ` +
    `${toleranceMs} ms. This is a replayed or delayed delivery, or this machine's clock drifts: sync it ` +
    '(NTP) or raise toleranceMs (600_000 is a common choice where clocks drift).'
  );
}
