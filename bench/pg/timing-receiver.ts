import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CHILD = fileURLToPath(new URL('./timing-receiver-child.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('./tsconfig.json', import.meta.url));

/** A receiver in its own process that records when each delivery (by entityId) arrived. */
export interface TimingReceiver {
  url: string;
  ca: string;
  /** entityId → arrival, epoch ms with sub-ms precision (compare with {@link epochNow}). */
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

/** Epoch ms with sub-ms precision, on the same clock the receiver process uses. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export async function startTimingReceiver(): Promise<TimingReceiver> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = fork(CHILD, [], {
    execArgv: ['--import', tsx],
    env: { ...process.env, TSX_TSCONFIG_PATH: TSCONFIG },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const arrivals = new Map<string, number>();
  type Message =
    | { type: 'ready'; url: string; ca: string }
    | { type: 'arrivals'; arrivals: Array<[string, number]> };
  const ready = new Promise<{ url: string; ca: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`timing receiver exited (code ${code})`)));
    child.on('message', (message: Message) => {
      if (message.type === 'ready') resolve(message);
      else
        for (const [entityId, at] of message.arrivals)
          if (!arrivals.has(entityId)) arrivals.set(entityId, at);
    });
  });
  const { url, ca } = await ready;
  return {
    url,
    ca,
    arrivals,
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    },
  };
}
