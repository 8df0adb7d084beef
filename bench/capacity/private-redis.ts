import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';

/** A throwaway redis-server started by the benchmark, so no other client's commands are counted. */
export interface PrivateRedis {
  url: string;
  port: number;
  pid: number;
  /** The command-line settings it runs with. */
  settings: string[];
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` on `port` (loopback only, nothing kept on disk, as the
 * machine's own Redis is configured) and waits until it answers PING.
 */
export async function startPrivateRedis(port: number): Promise<PrivateRedis> {
  const settings = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child: ChildProcess = spawn('redis-server', settings, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = once(child, 'exit');
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`redis-server on port ${port} exited (code ${child.exitCode})`);
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {}); // not listening yet: the loop asks again
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch (error) {
      probe.disconnect();
      if (Date.now() > deadline) {
        child.kill();
        throw new Error(`redis-server on port ${port} did not answer: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    port,
    pid: child.pid ?? 0,
    settings: ['--save ""', '--appendonly no'],
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
