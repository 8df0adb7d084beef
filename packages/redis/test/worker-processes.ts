import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const WORKER_ENTRY = fileURLToPath(new URL('./fixtures/worker-process.ts', import.meta.url));
const WORKER_TSCONFIG = fileURLToPath(new URL('./fixtures/tsconfig.json', import.meta.url));
/** The tsx loader, resolved from here so the child finds it whatever the working directory. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Settings of one worker process. */
export interface WorkerProcessOptions {
  redisUrl: string;
  prefix: string;
  receiverCa: string;
  concurrency: number;
  leaseMs: number;
  /** Use the linked store and queue of `createRedisWebhooks`. */
  linked: boolean;
}

/** A running worker process. */
export interface WorkerProcess {
  child: ChildProcess;
  /** SIGKILL: no cleanup, leases left behind. */
  kill(): Promise<void>;
  /** SIGTERM: the worker finishes in-flight attempts and exits. */
  stop(): Promise<void>;
}

/**
 * Starts `fixtures/worker-process.ts` through tsx, with the workspace packages
 * mapped to their sources (fixtures/tsconfig.json), so no build is needed.
 */
export async function spawnWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const child = fork(WORKER_ENTRY, [], {
    execArgv: ['--import', TSX_LOADER],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: WORKER_TSCONFIG,
      WHK_REDIS_URL: options.redisUrl,
      WHK_PREFIX: options.prefix,
      WHK_RECEIVER_CA: options.receiverCa,
      WHK_CONCURRENCY: String(options.concurrency),
      WHK_LEASE_MS: String(options.leaseMs),
      WHK_LINKED: options.linked ? '1' : '0',
    },
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('worker process not ready after 30 s')), 30_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited before it was ready (code ${code})`));
    });
  });
  const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    if (exited()) return;
    const exit = once(child, 'exit');
    child.kill(name);
    await exit;
  };
  return { child, kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}
