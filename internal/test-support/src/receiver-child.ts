/*
 * Entry point of the receiver child process started by spawnReceiverProcess()
 * (receiver-process.ts); not meant to be imported. It runs under the tsx
 * loader, answers 200 "ok" to every POST and, when asked, verifies each
 * signature with @svc/webhooks-verify (answering 401 when it fails). It keeps
 * counters only, never the requests, so a benchmark can push hundreds of
 * thousands of deliveries through it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getTestCertificate } from './certificate';
import type { FromReceiverChild, ReceiverStats, ToReceiverChild } from './receiver-messages';

type VerifySignature = (rawBody: string, header: string | undefined, secret: string | string[]) => unknown;

/** Kept in a variable so the type checker does not need verify's build output. */
const VERIFY_MODULE = '@svc/webhooks-verify';

const stats: ReceiverStats = { received: 0, verified: 0, failed: 0 };

function tell(message: FromReceiverChild): void {
  process.send?.(message);
}

async function loadVerify(): Promise<VerifySignature> {
  const loaded = (await import(VERIFY_MODULE)) as { verifyWebhookSignature?: unknown };
  if (typeof loaded.verifyWebhookSignature !== 'function') {
    throw new Error(`${VERIFY_MODULE} has no verifyWebhookSignature export; build it first`);
  }
  return loaded.verifyWebhookSignature as VerifySignature;
}

function answer(
  res: ServerResponse,
  rawBody: string,
  req: IncomingMessage,
  check: (() => void) | null,
): void {
  stats.received += 1;
  if (!check) {
    res.end('ok');
    return;
  }
  try {
    check();
    stats.verified += 1;
    res.end('ok');
  } catch {
    stats.failed += 1;
    res.writeHead(401).end(`signature rejected for ${req.url ?? ''} (${rawBody.length} bytes)`);
  }
}

async function start(verify: boolean, secret: string | string[] | null): Promise<void> {
  if (verify && secret === null) throw new Error('verify: true needs a secret');
  const verifySignature = verify ? await loadVerify() : null;
  const { key, cert } = await getTestCertificate();
  const server = createServer({ key, cert, keepAliveTimeout: 30_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const header = req.headers['x-service-signature'];
      const check =
        verifySignature && secret !== null
          ? () => verifySignature(rawBody, typeof header === 'string' ? header : undefined, secret)
          : null;
      answer(res, rawBody, req, check);
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  tell({ type: 'ready', url: `https://127.0.0.1:${port}/hooks`, ca: cert });
}

process.on('message', (message: ToReceiverChild) => {
  if (message.type === 'start') {
    start(message.verify, message.secret).catch((error: unknown) => {
      tell({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    });
  } else if (message.type === 'stats') {
    tell({ type: 'stats', id: message.id, stats: { ...stats } });
  } else if (message.type === 'reset') {
    Object.assign(stats, { received: 0, verified: 0, failed: 0 });
  }
});

// The parent went away (crashed or closed the channel): nothing left to serve.
process.on('disconnect', () => process.exit(0));
