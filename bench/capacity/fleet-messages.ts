/** Where a fleet's worker processes find their work. */
export type FleetBackend =
  | { kind: 'pg'; url: string; schema: string }
  | { kind: 'redis'; url: string; prefix: string };

/** Parent to worker child (worker-child.ts). */
export type ToWorkerChild =
  | { type: 'start'; backend: FleetBackend; ca: string }
  | { type: 'go' }
  | { type: 'stop' };

/** Worker child to parent. */
export type FromWorkerChild =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'stopped'; delivered: number; cpuSeconds: number };
