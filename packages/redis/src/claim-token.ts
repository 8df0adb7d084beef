import { randomBytes } from 'node:crypto';

/**
 * Claim ids must be unique across every process sharing a queue. A random
 * 96-bit token per process plus a counter gives that without asking the OS
 * for randomness on every claim (a system call that costs tens of µs on some
 * virtual machines, once per claim on the hot path).
 */
const PROCESS_TOKEN = randomBytes(12).toString('base64url');
let counter = 0;

/** A token no other claim, in this process or another, has used; the script appends `.n` per entry. */
export function nextClaimToken(): string {
  counter += 1;
  return `${PROCESS_TOKEN}${counter.toString(36)}`;
}
