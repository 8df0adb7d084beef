import { createHash } from 'node:crypto';
import type { RedisClient } from './connection';

type ScriptArg = string | number;

/**
 * A Lua script run by its SHA1 (EVALSHA), re-sent in full (EVAL, which also
 * caches it) when the server answers NOSCRIPT: after a restart, a failover or a
 * SCRIPT FLUSH the server's script cache is empty, and this is what lets workers
 * carry on after reconnecting. Unlike ioredis' `defineCommand`, it adds nothing
 * to the client, so an injected client is left exactly as the host made it.
 */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script with `keys` (all in one hash slot) and `args`. */
  async run(client: RedisClient, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!isNoScriptError(error)) throw error;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

function isNoScriptError(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
