import { createWorker, generateSigningSecret, type WebhookLogger } from '@svc/webhooks-core';
import { describe, expect, it } from 'vitest';
import { everythingIn, openSealedSecret, recordingSecrets } from './sealed-secrets';
import { onlyKey, type SecretsAtRestContext } from './secrets-at-rest-context';
import { jobCancelled } from './service-harness';

const BODY = {
  webhookUrl: 'https://hooks.test/receive',
  enabled: true,
  subscribedEventTypes: ['job_cancelled'],
};

/** Every secret value in `written` and, for a sealed one, the plaintext it holds. */
function secretsIn(written: readonly string[], key: string, agencyIds: readonly string[]): string[] {
  const found = new Set<string>();
  for (const value of written) {
    found.add(value);
    if (!value.startsWith('enc:')) continue;
    for (const agencyId of agencyIds) {
      try {
        found.add(openSealedSecret(key, agencyId, value));
      } catch {
        // Sealed for another agency of the list.
      }
    }
  }
  return [...found];
}

function expectNoSecretIn(error: unknown, secrets: readonly string[]): void {
  expect(error, 'the write failed').toBeInstanceOf(Error);
  expect((error as Error).message, 'a message that says what went wrong').not.toBe('');
  const text = everythingIn(error);
  for (const secret of secrets) expect(text, 'the error, every property serialised').not.toContain(secret);
  expect(text).not.toContain('enc:v1:');
}

/** A logger that keeps each line with every field serialised. */
function recordingLogger(lines: string[]): WebhookLogger {
  const write = (level: string) => (fields: Record<string, unknown>, message: string) => {
    lines.push(`${level} ${message} ${everythingIn(fields)}`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** What a failed write throws, and what a worker logs, holds no secret. */
export function describeSecretErrorCases(context: SecretsAtRestContext): void {
  const { keys } = context;

  describe('no secret in errors and logs', () => {
    it('a create, an update or a rotation the backend refuses throws without the secret or its ciphertext', async () => {
      const recorded = recordingSecrets(context.fixture().store);
      const webhooks = context.service(onlyKey(keys, 'k1'), { store: recorded.store });
      await webhooks.putConfig('agency-x', BODY);
      await context.fixture().breakConfigWrites('agency-x');
      await context.fixture().breakConfigWrites('agency-y');
      const failures = [
        await webhooks.rotateSecret('agency-x').catch((error: unknown) => error),
        await webhooks.putConfig('agency-y', BODY).catch((error: unknown) => error),
        await webhooks.putConfig('agency-x', BODY).catch((error: unknown) => error),
      ];
      const secrets = secretsIn(recorded.written, keys.k1, ['agency-x', 'agency-y']);
      expect(secrets.length, 'sealed values and their plaintexts').toBeGreaterThanOrEqual(8);
      for (const failure of failures) expectNoSecretIn(failure, secrets);

      const unkeyed = context.service(undefined, { store: recorded.store });
      const plaintextFailure = await unkeyed.rotateSecret('agency-x').catch((error: unknown) => error);
      expectNoSecretIn(plaintextFailure, [recorded.written.at(-1) ?? '']);
    });

    it('the store’s own writes, the compare-and-set included, throw without the values they carried', async () => {
      const { store } = context.fixture();
      const recorded = recordingSecrets(store);
      await context.service(onlyKey(keys, 'k1'), { store: recorded.store }).putConfig('agency-x', BODY);
      const stored = recorded.written[0] ?? '';
      await context.fixture().breakConfigWrites('agency-x');
      const known = generateSigningSecret();
      const now = Date.now();
      const failures = [
        await store.setSigningSecret('agency-x', known, now).catch((error: unknown) => error),
        await store
          .setSigningSecret('agency-x', known, now, { expectedSigningSecret: stored })
          .catch((error: unknown) => error),
        await store
          .upsertConfig({ ...BODY, agencyId: 'agency-x', now, newId: 'cfg-x', newSigningSecret: known })
          .catch((error: unknown) => error),
      ];
      for (const failure of failures) expectNoSecretIn(failure, [known, stored]);
    });

    it('a worker that cannot open a secret logs the typed error, and no line holds a secret', async () => {
      const harness = await context.harness(onlyKey(keys, 'k1'));
      const secret = await harness.configure('agency-a');
      const stored = (await context.fixture().store.getConfig('agency-a'))?.signingSecret ?? '';
      const lines: string[] = [];
      const webhooks = context.service(onlyKey(keys, 'k2'), { logger: recordingLogger(lines) });
      const worker = createWorker(webhooks, { pollIntervalMs: 20, recoverySweep: false });
      await worker.start();
      try {
        await webhooks.emit(jobCancelled('agency-a'));
        await expect.poll(() => lines.join('\n'), { timeout: 5_000 }).toContain('secret_key_unavailable');
      } finally {
        await worker.stop();
      }
      for (const line of lines) {
        expect(line).not.toContain(secret);
        expect(line).not.toContain(stored);
      }
    });
  });
}
