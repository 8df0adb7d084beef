import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CHILD = fileURLToPath(new URL('./receiver-child.ts', import.meta.url));
const START_TIMEOUT_MS = 15_000;

/** Ports of the three receivers of receiver-child.ts, all on 127.0.0.1. */
export interface ReceiverPorts {
  /** Answers every request 200. */
  ok: number;
  /** Reads every request and never answers. */
  hang: number;
  /** One origin for all: `/hang/…` hangs, anything else answers 200. */
  shared: number;
}

/** What the receivers saw of one measurement's tag. */
export interface ReceiverCounts {
  /** Requests answered 200. */
  answered: number;
  /** Requests read and held without an answer. */
  hung: number;
  /** Held requests whose connection is still open. */
  open: number;
  /** Most held requests open at once. */
  peakOpen: number;
  /** TLS connections whose first request was of this tag, by handshake: full, or resuming a session. */
  handshakes: { full: number; resumed: number };
}

export type ToReceiverChild = { type: 'counts'; id: number; tag: string };
export type FromReceiverChild =
  | { type: 'ready'; ports: ReceiverPorts; ca: string }
  | { type: 'counts'; id: number; counts: ReceiverCounts };

/** The receivers' child process. */
export interface IsolationReceivers {
  ports: ReceiverPorts;
  /** PEM certificate to trust (`transport.tls.ca`); valid for `*.hooks.test`, `hooks.test`, localhost. */
  ca: string;
  /** Counts of the requests whose path carries `tag`. */
  counts(tag: string): Promise<ReceiverCounts>;
  close(): Promise<void>;
}

/** Starts the receivers in a child process (its own core, not the sender's event loop). */
export async function startIsolationReceivers(): Promise<IsolationReceivers> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = fork(CHILD, [], {
    execArgv: ['--import', tsx],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = new Promise<{ ports: ReceiverPorts; ca: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('receiver process not ready in time')), START_TIMEOUT_MS);
    child.once('exit', (code) => reject(new Error(`receiver process exited (code ${code})`)));
    child.on('message', (message: FromReceiverChild) => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      resolve(message);
    });
  });
  const { ports, ca } = await ready.catch((error: unknown) => {
    child.kill();
    throw error;
  });
  let nextId = 1;
  return {
    ports,
    ca,
    counts(tag) {
      const id = nextId++;
      return new Promise((resolve) => {
        const onMessage = (message: FromReceiverChild) => {
          if (message.type !== 'counts' || message.id !== id) return;
          child.off('message', onMessage);
          resolve(message.counts);
        };
        child.on('message', onMessage);
        const request: ToReceiverChild = { type: 'counts', id, tag };
        child.send(request);
      });
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    },
  };
}
