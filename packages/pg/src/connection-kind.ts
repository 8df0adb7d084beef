import type { Pool } from 'pg';

/**
 * What each pool was found to be: `true` when its connections go through a
 * pooler (PgBouncer, a managed pooler), `false` for a direct server connection.
 * Missing until the first probe of that pool succeeded.
 */
const pooled = new WeakMap<Pool, boolean>();
const probes = new WeakMap<Pool, Promise<boolean>>();

/**
 * Finds out, once per pool, whether its connections reach PostgreSQL directly
 * or through a pooler. A server announces its backend's process id when a
 * connection opens (BackendKeyData); a pooler answers that message itself, with
 * an id of its own making, since the server connection behind the client is
 * chosen per transaction. So a direct connection's announced id equals
 * `pg_backend_pid()`, and a pooled one's does not.
 *
 * A failed probe is not remembered: the next call tries again.
 */
export function detectPooler(pool: Pool): Promise<boolean> {
  let probe = probes.get(pool);
  if (!probe) {
    probe = probeOnce(pool).then(
      (found) => {
        pooled.set(pool, found);
        return found;
      },
      (error: unknown) => {
        probes.delete(pool);
        throw error;
      },
    );
    probes.set(pool, probe);
  }
  return probe;
}

/** What {@link detectPooler} found for `pool`; undefined before it finished. */
export function isPooled(pool: Pool): boolean | undefined {
  return pooled.get(pool);
}

async function probeOnce(pool: Pool): Promise<boolean> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const announced = (client as { processID?: unknown }).processID;
    // A client that does not expose the announced id (not node-postgres's own
    // Client) cannot be told apart: treated as direct, as before this probe.
    return typeof announced === 'number' && rows[0]?.pid !== announced;
  } finally {
    client.release();
  }
}
