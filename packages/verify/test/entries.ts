import {
  signWebhook,
  type VerifyWebhookOptions,
  verifyWebhook,
  verifyWebhookSignature,
  type WebhookEnvelope,
  type WebhookRawBody,
  type WebhookSecret,
} from '@svc/webhooks-verify';
import { signWebhookAsync, verifyWebhookAsync, verifyWebhookSignatureAsync } from '@svc/webhooks-verify/web';

type Header = string | null | undefined;

/** One implementation of the verify API, with promises so Node and Web Crypto run through the same tests. */
export interface VerifyEntry {
  name: string;
  verify(
    body: WebhookRawBody,
    header: Header,
    secret: WebhookSecret,
    options?: VerifyWebhookOptions,
  ): Promise<WebhookEnvelope>;
  verifySignature(
    body: WebhookRawBody,
    header: Header,
    secret: WebhookSecret,
    options?: VerifyWebhookOptions,
  ): Promise<{ timestamp: number }>;
  sign(body: WebhookRawBody, secret: string, timestamp?: number): Promise<string>;
}

/** The Node (`node:crypto`) and the Web Crypto entry. */
export const entries: VerifyEntry[] = [
  {
    name: 'node entry',
    verify: async (...args) => verifyWebhook(...args),
    verifySignature: async (...args) => verifyWebhookSignature(...args),
    sign: async (...args) => signWebhook(...args),
  },
  {
    name: 'web entry',
    verify: verifyWebhookAsync,
    verifySignature: verifyWebhookSignatureAsync,
    sign: signWebhookAsync,
  },
];

/** Awaits a rejection and returns it, failing when the promise resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected the promise to reject');
}
