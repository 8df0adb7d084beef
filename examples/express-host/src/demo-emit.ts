import type { WebhookService } from '@svc/webhooks-core';
import { type Authenticate, readAgentToken } from '@svc/webhooks-express';
import express, { type Request, type Response, type Router } from 'express';

type EmitInput = Parameters<WebhookService['emit']>[0];

/** Errors of a bad emit input; anything else is the host's failure. */
const INPUT_ERROR_CODES: ReadonlySet<string> = new Set([
  'validation_failed',
  'invalid_metadata',
  'unknown_event_type',
]);

/**
 * `POST /demo/emit`: lets a demo or a curl session trigger an event over HTTP.
 * In a real host, `emit` is a library call made where the business event
 * happens (a job is created, a quote approved); there is no such endpoint.
 *
 * The body is an emit input without `agencyId`: the event goes to the agency
 * of the token in the `authorization` header.
 *
 * @example
 * ```sh
 * curl -X POST localhost:3000/demo/emit -H 'authorization: tok_owner' -H 'content-type: application/json' \
 *   -d '{"eventType":"job_completed","entityId":"job-1","metadata":{"jobId":"job-1"}}'
 * ```
 */
export function createDemoEmitRouter(service: WebhookService, authenticate: Authenticate): Router {
  const router = express.Router();
  router.post('/demo/emit', express.json({ limit: '100kb' }), async (req: Request, res: Response) => {
    const token = readAgentToken(req.headers.authorization);
    const agent = token === null ? null : await authenticate(token, req);
    if (!agent) {
      res
        .status(401)
        .json({ error: { code: 'unauthorized', message: 'Send a demo token in authorization.' } });
      return;
    }
    try {
      const input = { ...(req.body as object), agencyId: agent.agencyId } as EmitInput;
      const result = await service.emit(input);
      res.status(result ? 202 : 200).json({ deliveryId: result?.deliveryId ?? null });
    } catch (error) {
      const { code, message, details } = error as { code?: string; message: string; details?: unknown };
      if (code !== undefined && INPUT_ERROR_CODES.has(code)) {
        res.status(400).json({ error: { code, message, details } });
        return;
      }
      res.status(500).json({ error: { code: 'internal_error', message: 'Emit failed; see the host log.' } });
      console.error(error);
    }
  });
  return router;
}
