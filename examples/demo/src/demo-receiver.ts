import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createReceiverApp } from '@svc/example-receiver-express';
import { getTestCertificate } from '@svc/test-support';
import type { WebhookEnvelope } from '@svc/webhooks-verify';
import { detail } from './report';

/** A delivery the receiver verified, and what it answered. */
export interface ReceivedDelivery {
  envelope: WebhookEnvelope;
  rawBody: string;
  signature: string;
  status: number;
}

/** Decides the receiver's answer to a verified delivery; null answers 204. */
export type AnswerPlan = (envelope: WebhookEnvelope) => number | null;

/** The demo's receiver: the example Express receiver on HTTPS, with knobs to fail on purpose. */
export interface DemoReceiver {
  url: string;
  /** The receiver's self-signed certificate, which the host must trust. */
  ca: string;
  /** The secret(s) the receiver verifies with from now on. */
  useSecret(secret: string): void;
  /** How the receiver answers from now on. */
  answer(plan: AnswerPlan): void;
  received: ReceivedDelivery[];
  /** Resolves with the first delivery (already received or still to come) that matches. */
  waitFor(match: (delivery: ReceivedDelivery) => boolean, timeoutMs?: number): Promise<ReceivedDelivery>;
  close(): Promise<void>;
}

/**
 * Starts the example Express receiver on a local HTTPS port. The certificate is
 * the workspace's self-signed test certificate (a real receiver has a public one).
 */
export async function startDemoReceiver(): Promise<DemoReceiver> {
  const { key, cert } = await getTestCertificate();
  let secret = '';
  let plan: AnswerPlan = () => null;
  const received: ReceivedDelivery[] = [];
  const app = createReceiverApp({
    secret: () => secret,
    log: (line) => detail(`receiver │ ${line}`),
    onDelivery: (envelope, context) => {
      const status = plan(envelope) ?? 204;
      received.push({ envelope, ...context, status });
      return status;
    },
  });
  const server = createServer({ key, cert }, app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/webhooks`,
    ca: cert,
    useSecret: (next) => {
      secret = next;
    },
    answer: (next) => {
      plan = next;
    },
    received,
    waitFor: (match, timeoutMs = 10_000) => waitForDelivery(received, match, timeoutMs),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function waitForDelivery(
  received: ReceivedDelivery[],
  match: (delivery: ReceivedDelivery) => boolean,
  timeoutMs: number,
): Promise<ReceivedDelivery> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = received.find(match);
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`No matching delivery reached the receiver within ${timeoutMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
