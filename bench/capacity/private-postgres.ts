import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Where Debian puts the PostgreSQL 15 server binaries (override with `CAPACITY_PG_BIN`). */
const PG_BIN = process.env.CAPACITY_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A throwaway PostgreSQL cluster started by the benchmark, with pg_stat_statements loaded. */
export interface PrivatePostgres {
  url: string;
  port: number;
  /** The postmaster's pid: its CPU and its children's is the server's (see process-cpu.ts). */
  pid: number;
  /** The settings the cluster runs with that differ from initdb's, as `name = value` lines. */
  settings: string[];
  stop(): void;
}

/**
 * The settings the benchmark adds to initdb's postgresql.conf. Durability is left
 * at the defaults (`fsync`, `synchronous_commit` and `full_page_writes` on), so each
 * committed transaction pays its WAL flush as it would in production.
 */
function benchSettings(port: number, socketDir: string): string[] {
  return [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${socketDir}'`,
    "shared_preload_libraries = 'pg_stat_statements'",
    // Nested statements too (the NOTIFY trigger's), each counted under its own row.
    'pg_stat_statements.track = all',
    'pg_stat_statements.max = 10000',
    'max_connections = 200',
  ];
}

/** Runs a PostgreSQL binary as the `postgres` OS user (initdb and postgres refuse root). */
function asPostgres(binary: string, args: string[]): string {
  const path = join(PG_BIN, binary);
  const [command, commandArgs] =
    process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  return execFileSync(command, commandArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * initdb's a cluster into a fresh temp directory, starts it on `port` with
 * pg_stat_statements preloaded and waits for it, then creates the extension in
 * the `postgres` database. The machine's own PostgreSQL is never touched.
 */
export async function startPrivatePostgres(port: number): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-capacity-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const stop = () => {
    try {
      asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    } catch {
      // Not running (a failed start): nothing to stop.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    const settings = benchSettings(port, dir);
    writeFileSync(
      join(data, 'postgresql.conf'),
      `${readFileSync(join(data, 'postgresql.conf'), 'utf8')}\n${settings.join('\n')}\n`,
    );
    asPostgres('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.end();
    return { url, port, pid, settings, stop };
  } catch (error) {
    stop();
    throw error;
  }
}
