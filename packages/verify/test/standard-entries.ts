import {
  type StandardHeadersInput,
  type StandardKeys,
  type StandardVerifiedSignature,
  signStandardWebhook,
  signStandardWebhookAsymmetric,
  type VerifiedSignature,
  type VerifyWebhookOptions,
  verifyStandardWebhook,
  verifyStandardWebhookSignature,
  verifyWebhook,
  verifyWebhookSignature,
  type WebhookEnvelope,
  type WebhookRawBody,
  type WebhookSecret,
} from '@svc/webhooks-verify';
import {
  signStandardWebhookAsymmetricAsync,
  signStandardWebhookAsync,
  verifyStandardWebhookAsync,
  verifyStandardWebhookSignatureAsync,
  verifyWebhookAsync,
  verifyWebhookSignatureAsync,
} from '@svc/webhooks-verify/web';

type Keys = WebhookSecret | StandardKeys;
type Verify<T> = (
  body: WebhookRawBody,
  headers: StandardHeadersInput,
  keys: Keys,
  options?: VerifyWebhookOptions,
) => Promise<T>;

/** One entry's Standard Webhooks functions, as promises so the Node and Web Crypto entries share tests. */
export interface StandardEntry {
  name: string;
  verify: Verify<WebhookEnvelope>;
  verifySignature: Verify<StandardVerifiedSignature>;
  /** `verifyWebhook` given the headers object: the scheme chosen by the headers present. */
  verifyAny: Verify<WebhookEnvelope>;
  verifyAnySignature: Verify<VerifiedSignature>;
  sign(body: WebhookRawBody, secret: string, id: string, seconds?: number): Promise<string>;
  signAsymmetric(body: WebhookRawBody, privateKey: string, id: string, seconds?: number): Promise<string>;
}

/** The Node (`node:crypto`) and the Web Crypto entry. */
export const standardEntries: StandardEntry[] = [
  {
    name: 'node entry',
    verify: async (...args) => verifyStandardWebhook(...args),
    verifySignature: async (...args) => verifyStandardWebhookSignature(...args),
    verifyAny: async (...args) => verifyWebhook(...args),
    verifyAnySignature: async (...args) => verifyWebhookSignature(...args),
    sign: async (...args) => signStandardWebhook(...args),
    signAsymmetric: async (...args) => signStandardWebhookAsymmetric(...args),
  },
  {
    name: 'web entry',
    verify: verifyStandardWebhookAsync,
    verifySignature: verifyStandardWebhookSignatureAsync,
    verifyAny: verifyWebhookAsync,
    verifyAnySignature: verifyWebhookSignatureAsync,
    sign: signStandardWebhookAsync,
    signAsymmetric: signStandardWebhookAsymmetricAsync,
  },
];
