import { setNewest } from '@svc/webhooks-core/adapter-kit';
import type { ChannelSubscription } from '../connection/channel-subscription';

/**
 * Wake-ups for idle workers over Redis pub/sub: every enqueue publishes on the
 * queue's channel, and the queue's subscriber connection resolves the waiting
 * `waitForWork` calls.
 *
 * Each message names the enqueued entry (`<deliveryId> <runAt>`), or is
 * `*<agencyId>`: an agency set aside at its cap dropped a lease (its due entries
 * are claimable again), or a script queued a batch of its entries at once.
 * Messages that arrive while nobody waits are kept as "unanswered" until a
 * claim answers them: a claim answers every message received before it began,
 * and those of the deliveries it returned. A wait returns at once while any
 * message is unanswered (the entry may be waiting for this worker), and only
 * then, so a message whose delivery a claim already took costs no extra claim.
 * Enqueues made while the subscriber was (re)connecting are found by asking
 * `hasDueWork` each time the subscription comes up. Waits still end on their
 * timeout, so anything else lost costs at most one poll interval, never a
 * delivery.
 */
/** Stands for "some delivery" when the listener found due work by asking, not by a message. */
const SOMETHING_DUE = '*';
/** Unanswered messages kept at most; older ones count as answered (a wait still ends on its timeout). */
const MAX_UNANSWERED = 10_000;
/** Recently claimed entries remembered, for messages that trail their claim. */
const MAX_RECENTLY_CLAIMED = 1_024;

/** An entry a claim returned: the delivery and the due time it was enqueued with. */
export interface ClaimedEntry {
  deliveryId: string;
  runAt: number;
}

/**
 * Splits a message into the delivery (or `*agency`) it announces and the due
 * time it was enqueued with; `runAt` is undefined for an agency's message and
 * for one published without a due time (by an earlier version).
 */
function parseMessage(message: string): { key: string; runAt: number | undefined } {
  const space = message.lastIndexOf(' ');
  if (message.startsWith('*') || space < 0) return { key: message, runAt: undefined };
  const runAt = Number(message.slice(space + 1));
  return Number.isFinite(runAt)
    ? { key: message.slice(0, space), runAt }
    : { key: message, runAt: undefined };
}

export class WakeupListener {
  #waiters = new Set<() => void>();
  #closed = false;
  /** Message sequence number, and the unanswered messages: deliveryId → sequence number. */
  #seq = 0;
  readonly #unanswered = new Map<string, number>();
  /**
   * Entries this process claimed lately (deliveryId → due time): their own
   * messages, when they trail the claim's reply, are old news. A later enqueue
   * of the same delivery (a replay, a recovery) has another due time and wakes
   * a worker as any enqueue does.
   */
  readonly #recentlyClaimed = new Map<string, number>();

  constructor(
    private readonly subscription: ChannelSubscription,
    channel: string,
    private readonly hasDueWork: () => Promise<boolean>,
  ) {
    subscription.on(channel, (deliveryId) => this.#onMessage(deliveryId));
    // (Re)subscribed: look for what was enqueued while nobody listened.
    subscription.whenLive(() => this.#checkForMissedWork());
  }

  /** Subscribed and connected right now: only then does a quiet channel mean nothing was enqueued. */
  get live(): boolean {
    return this.subscription.live;
  }

  /** The sequence number of the latest message; take it when a claim begins, for {@link answered}. */
  get seq(): number {
    return this.#seq;
  }

  /** No message is waiting for a claim to answer it. */
  get quiet(): boolean {
    return this.#unanswered.size === 0;
  }

  /** A claim that began at sequence `since` has run and returned `claimed`: those messages are answered. */
  answered(since: number, claimed: Iterable<ClaimedEntry> = []): void {
    for (const [id, seq] of this.#unanswered) if (seq <= since) this.#unanswered.delete(id);
    for (const { deliveryId, runAt } of claimed) {
      this.#unanswered.delete(deliveryId);
      setNewest(this.#recentlyClaimed, deliveryId, runAt, MAX_RECENTLY_CLAIMED);
    }
  }

  /** Opens the subscriber connection now (idempotent), so the first wait does not race its setup. */
  prepare(): void {
    if (!this.#closed) this.subscription.open();
  }

  /**
   * Resolves on the next wake-up, after `timeoutMs`, or when `signal` aborts; at
   * once while a message is unanswered. Never rejects.
   */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted || this.#closed) return Promise.resolve();
    this.prepare();
    if (this.#unanswered.size > 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      signal?.addEventListener('abort', done, { once: true });
      this.#waiters.add(done);
    });
  }

  /** Wakes every waiter now; later waits resolve at once. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#wakeAll();
  }

  #checkForMissedWork(): void {
    this.hasDueWork()
      .then((due) => {
        if (due) this.#onMessage(SOMETHING_DUE);
      })
      .catch(() => {});
  }

  #onMessage(message: string): void {
    const { key: deliveryId, runAt } = parseMessage(message);
    // The message and the claim's reply travel on two connections; the message may come second.
    // Pub/sub keeps order, so once a later enqueue's message is here, the claimed one's is past.
    const claimedRunAt = this.#recentlyClaimed.get(deliveryId);
    if (claimedRunAt !== undefined) {
      this.#recentlyClaimed.delete(deliveryId);
      if (runAt === undefined || runAt === claimedRunAt) return;
    }
    this.#seq += 1;
    this.#unanswered.delete(deliveryId);
    this.#unanswered.set(deliveryId, this.#seq);
    if (this.#unanswered.size > MAX_UNANSWERED) this.answered(this.#seq - MAX_UNANSWERED);
    this.#wakeAll();
  }

  #wakeAll(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}
