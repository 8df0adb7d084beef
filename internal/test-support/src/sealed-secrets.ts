import { createDecipheriv, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import type { WebhookStore } from '@svc/webhooks-core';

/** A fresh 32-byte key in base64, as a host keeps one in its environment. */
export function newSecretKey(): string {
  return randomBytes(32).toString('base64');
}

/**
 * Opens a sealed secret by following docs/security.md ("Secrets at rest") alone,
 * without core's code: `enc:v1:<keyId>:<base64url of iv ‖ ciphertext ‖ tag>`,
 * AES-256-GCM, associated data `enc:v1:<keyId>:` + agency id. A test that opens
 * a stored value with it proves both the storage and the documented format.
 */
export function openSealedSecret(key: string, agencyId: string, stored: string): string {
  const match = /^enc:v1:([A-Za-z0-9_-]{1,64}):([A-Za-z0-9_-]+)$/.exec(stored);
  if (!match) throw new Error('The stored value is not a sealed secret (enc:v1:<keyId>:<payload>).');
  const bytes = Buffer.from(match[2] as string, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(key, 'base64'), bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(`enc:v1:${match[1]}:${agencyId}`, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  const plain = decipher.update(bytes.subarray(12, bytes.length - 16));
  return Buffer.concat([plain, decipher.final()]).toString('utf8');
}

/**
 * Everything an error carries, as a structured logger or a crash report could
 * print it: a JSON copy of every own property (enumerable or not, so message,
 * stack and cause too) at any depth, then `util.inspect` with hidden properties
 * and getters.
 */
export function everythingIn(error: unknown): string {
  const json = JSON.stringify(plainCopy(error, 0, new Set()));
  return `${json}\n${inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true })}`;
}

function plainCopy(value: unknown, depth: number, seen: Set<object>): unknown {
  if (typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function')
    return String(value);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value) || depth > 20) return '[seen]';
  seen.add(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('latin1');
  if (Array.isArray(value)) return value.map((item) => plainCopy(item, depth + 1, seen));
  const copy: Record<string, unknown> = {};
  for (const key of Object.getOwnPropertyNames(value)) {
    try {
      copy[key] = plainCopy((value as Record<string, unknown>)[key], depth + 1, seen);
    } catch (error) {
      copy[key] = `[getter threw: ${String(error)}]`;
    }
  }
  return copy;
}

/**
 * The store seen through a proxy that records every secret value written to it
 * (`newSigningSecret` of upserts, the secret and expected value of
 * `setSigningSecret`), as the backend received them: sealed when the service
 * has keys. A proxy rather than a copy, so a class-based store keeps working.
 */
export function recordingSecrets(store: WebhookStore): { store: WebhookStore; written: string[] } {
  const written: string[] = [];
  const proxy = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (property === 'upsertConfig') {
        return (input: Parameters<WebhookStore['upsertConfig']>[0]) => {
          written.push(input.newSigningSecret);
          return target.upsertConfig(input);
        };
      }
      if (property === 'setSigningSecret') {
        return (...args: Parameters<WebhookStore['setSigningSecret']>) => {
          written.push(args[1], ...(args[3]?.expectedSigningSecret ? [args[3].expectedSigningSecret] : []));
          return target.setSigningSecret(...args);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: proxy, written };
}
