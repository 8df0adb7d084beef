import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A real HTTP server implementing the bulk-recovery contract of the design (§5.3), so `recover`'s output
 * can be checked step by step:
 *   POST /deliveries/recover { since, until?, eventTypes?, dryRun? }
 *     → 200 { matched } for a dry run, else 202 { recoveryId, matched }; 409 recovery_in_progress while
 *       one runs
 *   GET /recoveries/:id → { id, status: running | completed | cancelled, matched, replayed, since, until,
 *     eventTypes, createdAt, completedAt }
 *   POST /recoveries/:id/cancel
 * It holds failed deliveries (creation time, event type) and counts them into a window as the contract
 * says. A recovery replays one delivery each time it is read, so progress is deterministic, not timed.
 */

/** A failed delivery the server can recover. */
export interface FailedDelivery {
  createdAt: number;
  eventType: string;
}

interface Recovery {
  id: string;
  status: 'running' | 'completed' | 'cancelled';
  matched: number;
  replayed: number;
  since: number;
  until: number | null;
  eventTypes: string[] | null;
  createdAt: number;
  completedAt: number | null;
}

/** The running server. */
export interface RecoveryServer {
  /** The mount path's URL, for `--api`. */
  api: string;
  /** Bodies of every POST /deliveries/recover, in order. */
  requests: unknown[];
  /** Cancels the recovery once it has replayed this many (as another operator's cancel would). */
  cancelAfter: number | null;
  close(): Promise<void>;
}

const BASE = '/v1/agency/webhooks';

export async function startRecoveryServer(token: string, failed: FailedDelivery[]): Promise<RecoveryServer> {
  const recoveries = new Map<string, Recovery>();
  const state: RecoveryServer = { api: '', requests: [], cancelAfter: null, close: async () => {} };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      answerError(res, 401, 'unauthorized');
      return;
    }
    const path = (req.url ?? '').replace(BASE, '');
    if (req.method === 'POST' && path === '/deliveries/recover') {
      start(res, await readJson(req));
      return;
    }
    const match = /^\/recoveries\/([^/]+)(\/cancel)?$/.exec(path);
    const recovery = match ? recoveries.get(decodeURIComponent(match[1] as string)) : undefined;
    if (!recovery) {
      answerError(res, 404, 'not_found');
      return;
    }
    if (req.method === 'POST' && match?.[2]) {
      if (recovery.status === 'running') finish(recovery, 'cancelled');
      answer(res, 200, recovery);
      return;
    }
    if (req.method === 'GET' && !match?.[2]) {
      answer(res, 200, advance(recovery));
      return;
    }
    answerError(res, 405, 'method_not_allowed');
  };

  const start = (res: ServerResponse, body: unknown): void => {
    state.requests.push(body);
    const request = body as { since?: unknown; until?: unknown; eventTypes?: unknown; dryRun?: unknown };
    if (!isTime(request.since) || (request.until !== undefined && !isTime(request.until))) {
      answerError(res, 400, 'validation_failed');
      return;
    }
    const eventTypes = Array.isArray(request.eventTypes) ? (request.eventTypes as string[]) : null;
    const until = (request.until as number | undefined) ?? null;
    const matched = failed.filter(
      (delivery) =>
        delivery.createdAt >= (request.since as number) &&
        (until === null || delivery.createdAt < until) &&
        (eventTypes === null || eventTypes.includes(delivery.eventType)),
    ).length;
    if (request.dryRun === true) {
      answer(res, 200, { matched });
      return;
    }
    if ([...recoveries.values()].some((recovery) => recovery.status === 'running')) {
      answerError(res, 409, 'recovery_in_progress');
      return;
    }
    const recovery: Recovery = {
      id: `rec_${recoveries.size + 1}`,
      status: 'running',
      matched,
      replayed: 0,
      since: request.since as number,
      until,
      eventTypes,
      createdAt: Date.now(),
      completedAt: null,
    };
    recoveries.set(recovery.id, recovery);
    answer(res, 202, { recoveryId: recovery.id, matched });
  };

  const advance = (recovery: Recovery): Recovery => {
    if (recovery.status !== 'running') return recovery;
    if (state.cancelAfter !== null && recovery.replayed >= state.cancelAfter) finish(recovery, 'cancelled');
    else if (recovery.replayed >= recovery.matched) finish(recovery, 'completed');
    else recovery.replayed += 1;
    return recovery;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => answerError(res, 400, 'invalid_json'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.api = `http://127.0.0.1:${(server.address() as AddressInfo).port}${BASE}`;
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

function finish(recovery: Recovery, status: 'completed' | 'cancelled'): void {
  recovery.status = status;
  recovery.completedAt = Date.now();
}

function isTime(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function answerError(res: ServerResponse, status: number, code: string): void {
  answer(res, status, { error: { code, message: `Refused: ${code}.` } });
}
