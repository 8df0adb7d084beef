import { pollUntil } from '../lib/poll';

/** Longest a measurement waits for its deliveries before it fails instead of hanging. */
const DELIVERY_LIMIT_MS = Number(process.env.CAPACITY_LIMIT_MS ?? 180_000);

/** Resolves once `received()` reaches `target`; throws after {@link DELIVERY_LIMIT_MS} with what arrived. */
export async function waitForDeliveries(
  received: () => Promise<number>,
  target: number,
  what: string,
): Promise<void> {
  const { value, waitedMs } = await pollUntil(received, (count) => count >= target, DELIVERY_LIMIT_MS, 5);
  if (value < target) {
    throw new Error(
      `${what}: the receiver had ${value} of ${target} deliveries after ${Math.round(waitedMs)} ms`,
    );
  }
}
