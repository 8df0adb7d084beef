import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A redis-server of the test's own, on a spare port, persisting to a temporary directory with AOF. */
export interface ThrowawayRedis {
  url: string;
  port: number;
  /** Stops the server by its PID (SIGTERM: Redis flushes the AOF and exits). */
  stop(): Promise<void>;
  /** Starts it again on the same port and directory; the data comes back from the AOF. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  destroy(): Promise<void>;
}

/**
 * Whether a `redis-server` binary is on PATH. Outside CI its absence skips the
 * restart test loudly; with CI=true it fails.
 */
function probeRedisServerBinary(): boolean {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  if (probe.status === 0) return true;
  const message = 'No redis-server binary on PATH: the Redis restart test needs one to start its own server.';
  if (process.env.CI === 'true') throw new Error(`${message} CI=true: install redis-server.`);
  console.warn(`\n!!! ${message} SKIPPING restart.redis.test.ts.\n`);
  return false;
}

export const redisServerAvailable = probeRedisServerBinary();

/** A TCP port nothing listens on right now. */
async function sparePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

async function waitUntilAnswering(url: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      await probe.connect();
      // Loading the AOF answers LOADING errors until done; PING succeeds only afterwards.
      if ((await probe.ping()) === 'PONG') return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    } finally {
      probe.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts `redis-server` (from PATH) on a spare port with `--appendonly yes --appendfsync always`. */
export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await sparePort();
  const dir = await mkdtemp(join(tmpdir(), 'whk-redis-restart-'));
  const url = `redis://127.0.0.1:${port}`;
  let server: ChildProcess | null = null;

  const start = async (): Promise<void> => {
    server = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    await waitUntilAnswering(url);
  };
  const stop = async (): Promise<void> => {
    const running = server;
    server = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    process.kill(running.pid!, 'SIGTERM');
    await exited;
  };

  await start();
  return {
    url,
    port,
    start,
    stop,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
