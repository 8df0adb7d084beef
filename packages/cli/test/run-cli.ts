import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built executable, as `npm install` links it. */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** What one run printed and how it ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runBin}. */
export interface RunOptions {
  /** Written to the process's stdin (which is then closed). @default '' */
  stdin?: string;
  /** Variables besides PATH and HOME; the caller's SVC_WEBHOOKS_* never leak in. */
  env?: Record<string, string>;
  cwd?: string;
}

/** Runs `node dist/bin.js …args` in a child process and collects its output. */
export function runBin(args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? tmpdir(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A fresh temporary directory. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-webhooks-cli-'));
}

/** Writes `contents` to a new file in a fresh temporary directory and returns its path. */
export function tempFile(name: string, contents: string | Uint8Array): string {
  const path = join(tempDir(), name);
  writeFileSync(path, contents);
  return path;
}

/** A signing secret of the service's form: 64 lowercase hex characters. */
export const SECRET = '9a96cd932369e181310e3f13c02b2acf00cdd216854d7ef316902e571ced9d7b';
