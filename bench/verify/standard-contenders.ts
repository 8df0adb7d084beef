import {
  signStandardWebhook,
  toStandardSecret,
  verifyStandardWebhook,
  verifyStandardWebhookSignature,
} from '@svc/webhooks-verify';
import { verifyStandardWebhookSignatureAsync } from '@svc/webhooks-verify/web';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import type { Measured } from './contenders';
import { SECRET } from './fixtures';

/**
 * Standard Webhooks verification, every contender on the same input: one body, one set of
 * `webhook-id` / `webhook-timestamp` / `webhook-signature` headers signed by @svc/webhooks-verify, and one
 * key (the 64 UTF-8 bytes of the hex secret; the libraries take its whsec_ form).
 */
export interface StandardContender extends Measured {
  /** The row this one's ratio is taken against. */
  comparedWith: string;
  /** Whether the call also parses the body. */
  parses: boolean;
}

const WHSEC = toStandardSecret(SECRET);
const ID = 'whdel_0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b';

/** The headers of a delivery of `body`, signed now (a fresh timestamp each time a task is prepared). */
function standardHeaders(body: string): Record<string, string> {
  const seconds = Math.floor(Date.now() / 1000);
  return {
    'webhook-id': ID,
    'webhook-timestamp': String(seconds),
    'webhook-signature': signStandardWebhook(body, SECRET, ID, seconds),
  };
}

const subtle = globalThis.crypto.subtle;

/** Bytes of base64 text with the Web API only. */
function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
const encoder = new TextEncoder();
// The Web Crypto floor's key is imported once, before the run: the floor never pays for an import.
const floorKey = await subtle.importKey(
  'raw',
  encoder.encode(SECRET),
  { name: 'HMAC', hash: 'SHA-256' },
  false,
  ['verify'],
);

export const WEB_FLOOR = 'Web Crypto floor: subtle.verify, cached key';
export const STANDARDWEBHOOKS = 'standardwebhooks Webhook.verify';

/** Every Standard Webhooks contender, in table order. */
export const standardContenders: StandardContender[] = [
  {
    name: WEB_FLOOR,
    comparedWith: WEB_FLOOR,
    parses: false,
    prepare(body) {
      // `crypto.subtle.verify` over the signed content, given the id, the timestamp and the signature text
      // already split out of the headers and no timestamp check. Like the node:crypto floor, which decodes
      // its hex `v1` on each call, it decodes the base64 signature on each call, the Web way (atob: there
      // is no Buffer in a Web runtime).
      const headers = standardHeaders(body);
      const signature = (headers['webhook-signature'] as string).slice(3);
      const prefix = `${headers['webhook-id']}.${headers['webhook-timestamp']}.`;
      return () => subtle.verify('HMAC', floorKey, decodeBase64(signature), encoder.encode(prefix + body));
    },
  },
  {
    name: '@svc verifyStandardWebhookSignatureAsync (Web Crypto)',
    comparedWith: WEB_FLOOR,
    parses: false,
    prepare(body) {
      const headers = standardHeaders(body);
      return () => verifyStandardWebhookSignatureAsync(body, headers, SECRET);
    },
  },
  {
    name: '@svc verifyStandardWebhookSignature',
    comparedWith: STANDARDWEBHOOKS,
    parses: false,
    prepare(body) {
      const headers = standardHeaders(body);
      return () => verifyStandardWebhookSignature(body, headers, SECRET);
    },
  },
  {
    name: '@svc verifyStandardWebhook',
    comparedWith: STANDARDWEBHOOKS,
    parses: true,
    prepare(body) {
      const headers = standardHeaders(body);
      return () => verifyStandardWebhook(body, headers, SECRET);
    },
  },
  {
    name: STANDARDWEBHOOKS,
    comparedWith: STANDARDWEBHOOKS,
    parses: true,
    prepare(body) {
      const webhook = new StandardWebhook(WHSEC);
      const headers = standardHeaders(body);
      return () => webhook.verify(body, headers);
    },
  },
  {
    name: 'svix Webhook.verify',
    comparedWith: STANDARDWEBHOOKS,
    parses: true,
    prepare(body) {
      const webhook = new SvixWebhook(WHSEC);
      const headers = standardHeaders(body);
      return () => webhook.verify(body, headers);
    },
  },
];
