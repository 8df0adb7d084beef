/** Messages between {@link spawnReceiverProcess} and its child (over the IPC channel). */

/** What the child counts. */
export interface ReceiverStats {
  /** Requests received. */
  received: number;
  /** Requests whose signature verified (only when verification is on). */
  verified: number;
  /** Requests whose signature did not verify; they were answered 401. */
  failed: number;
}

/** Parent to child. */
export type ToReceiverChild =
  | { type: 'start'; verify: boolean; secret: string | string[] | null }
  | { type: 'stats'; id: number }
  | { type: 'reset' };

/** Child to parent. */
export type FromReceiverChild =
  | { type: 'ready'; url: string; ca: string }
  | { type: 'failed'; message: string }
  | { type: 'stats'; id: number; stats: ReceiverStats };
