import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FromReceiverChild, ReceiverStats, ToReceiverChild } from './receiver-messages';

/** Options of {@link spawnReceiverProcess}. */
export interface ReceiverProcessOptions {
  /**
   * Verify every delivery's `X-Service-Signature` with `@svc/webhooks-verify`
   * (which must be built: the child imports the package, not its sources).
   * Failures are answered 401 and counted.
   * @default false
   */
  verify?: boolean;
  /** Signing secret (or secrets) to verify with; required when `verify` is on. */
  secret?: string | string[];
  /**
   * Longest wait for the child to start listening, in ms.
   * @default 15000
   */
  startTimeoutMs?: number;
}

/** A receiver running in its own process, so it does not share a CPU core's event loop with the sender. */
export interface ReceiverProcess {
  /** `https://127.0.0.1:PORT/hooks` */
  url: string;
  /** PEM certificate to trust, for `transport.tls.ca` or an undici `connect.ca`. */
  ca: string;
  pid: number;
  /** Counters since start (or the last `reset`). */
  stats(): Promise<ReceiverStats>;
  /** Sets the counters back to zero (e.g. after a warm-up). */
  reset(): void;
  /** Stops the child process. */
  close(): Promise<void>;
}

const CHILD_ENTRY = fileURLToPath(new URL('./receiver-child.ts', import.meta.url));

/** The tsx loader, resolved from this package so the child finds it wherever the parent runs. */
function tsxLoader(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
}

function post(child: ChildProcess, message: ToReceiverChild): void {
  child.send(message);
}

function waitForReady(child: ChildProcess, timeoutMs: number): Promise<{ url: string; ca: string }> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      cleanup();
      child.kill();
      reject(error);
    };
    const onMessage = (message: FromReceiverChild) => {
      if (message.type === 'ready') {
        cleanup();
        resolve({ url: message.url, ca: message.ca });
      } else if (message.type === 'failed') {
        fail(new Error(`Receiver process failed to start: ${message.message}`));
      }
    };
    const onExit = (code: number | null) => fail(new Error(`Receiver process exited early (code ${code})`));
    const timer = setTimeout(
      () => fail(new Error(`Receiver process not ready after ${timeoutMs} ms`)),
      timeoutMs,
    );
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Starts the HTTPS test receiver in a child process (run through the tsx
 * loader) and talks to it over IPC. Meant for benchmarks: the child only
 * counts requests and optionally verifies their signatures.
 *
 * @example
 * ```ts
 * const receiver = await spawnReceiverProcess({ verify: true, secret });
 * // ... send deliveries to receiver.url with tls.ca = receiver.ca ...
 * const { received, verified, failed } = await receiver.stats();
 * await receiver.close();
 * ```
 */
export async function spawnReceiverProcess(options: ReceiverProcessOptions = {}): Promise<ReceiverProcess> {
  const verify = options.verify ?? false;
  if (verify && options.secret === undefined) throw new Error('spawnReceiverProcess: verify needs a secret');
  const child = fork(CHILD_ENTRY, [], {
    execArgv: ['--import', tsxLoader()],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = waitForReady(child, options.startTimeoutMs ?? 15_000);
  post(child, { type: 'start', verify, secret: options.secret ?? null });
  const { url, ca } = await ready;

  const pending = new Map<
    number,
    { resolve: (stats: ReceiverStats) => void; reject: (error: Error) => void }
  >();
  let nextId = 1;
  child.on('message', (message: FromReceiverChild) => {
    if (message.type !== 'stats') return;
    pending.get(message.id)?.resolve(message.stats);
    pending.delete(message.id);
  });
  child.once('exit', () => {
    for (const { reject } of pending.values()) reject(new Error('Receiver process exited'));
    pending.clear();
  });
  const running = () => child.exitCode === null && child.signalCode === null;

  return {
    url,
    ca,
    pid: child.pid ?? 0,
    stats() {
      if (!running()) return Promise.reject(new Error('Receiver process is not running'));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        post(child, { type: 'stats', id });
      });
    },
    reset() {
      post(child, { type: 'reset' });
    },
    async close() {
      if (!running()) return;
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    },
  };
}
