import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CHILD = fileURLToPath(new URL('./receiver-child.ts', import.meta.url));
/** The child resolves the workspace packages to their sources, as the benchmark itself does. */
const TSCONFIG = fileURLToPath(new URL('./tsconfig.json', import.meta.url));

/** HTTPS receivers in a child process: each on its own loopback address and port, one certificate for all. */
export interface BenchReceivers {
  /** Receiver i listens on `addresses[i]:ports[i]`. */
  addresses: string[];
  ports: number[];
  /** PEM certificate to trust (`transport.tls.ca`); valid for `*.hooks.test` and every address. */
  ca: string;
  /** Requests received so far, all ports together. */
  received(): Promise<number>;
  close(): Promise<void>;
}

type FromChild = { type: 'ready'; ports: number[]; ca: string } | { type: 'stats'; received: number };

/**
 * The loopback address of receiver `i`: 127.0.0.2 onwards (127.0.0.1 is left to
 * everything else), carrying into the third byte past 255.
 */
export function receiverAddress(i: number): string {
  const n = i + 2;
  return `127.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** Starts `count` receivers in one child process (its own core, not the sender's event loop). */
export async function startReceivers(count: number): Promise<BenchReceivers> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const addresses = Array.from({ length: count }, (_, i) => receiverAddress(i));
  const child = fork(CHILD, [addresses.join(',')], {
    execArgv: ['--import', tsx],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, TSX_TSCONFIG_PATH: TSCONFIG },
  });
  const ready = new Promise<{ ports: number[]; ca: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver process exited (code ${code})`)));
    child.on('message', (message: FromChild) => {
      if (message.type === 'ready') resolve(message);
    });
  });
  const { ports, ca } = await ready;
  return {
    addresses,
    ports,
    ca,
    received() {
      return new Promise((resolve) => {
        const onMessage = (message: FromChild) => {
          if (message.type !== 'stats') return;
          child.off('message', onMessage);
          resolve(message.received);
        };
        child.on('message', onMessage);
        child.send({ type: 'stats' });
      });
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    },
  };
}
