import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CHILD = fileURLToPath(new URL('./receiver-child.ts', import.meta.url));

/** HTTPS receivers in a child process: one port each on 127.0.0.1, one certificate for all. */
export interface BenchReceivers {
  ports: number[];
  /** PEM certificate to trust (`transport.tls.ca`); valid for 127.0.0.1 and `*.hooks.test`. */
  ca: string;
  /** Requests received so far, all ports together. */
  received(): Promise<number>;
  close(): Promise<void>;
}

type FromChild = { type: 'ready'; ports: number[]; ca: string } | { type: 'stats'; received: number };

/** Starts `count` receivers in one child process (its own core, not the sender's event loop). */
export async function startReceivers(count: number): Promise<BenchReceivers> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = fork(CHILD, [String(count)], {
    execArgv: ['--import', tsx],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = new Promise<{ ports: number[]; ca: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver process exited (code ${code})`)));
    child.on('message', (message: FromChild) => {
      if (message.type === 'ready') resolve(message);
    });
  });
  const { ports, ca } = await ready;
  return {
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
