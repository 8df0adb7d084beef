import { createHmac, timingSafeEqual } from 'node:crypto';
import { signWebhook, verifyWebhook, verifyWebhookSignature } from '@svc/webhooks-verify';
import { verifyWebhookSignatureAsync } from '@svc/webhooks-verify/web';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import * as withCreateHmac from './create-hmac-variant';
import { SECRET } from './fixtures';

/** One call on one body; returns something truthy so the work cannot be optimised away. */
export type VerifyCall = () => unknown;

/** Something measured, prepared for one body. */
export interface Measured {
  name: string;
  prepare(body: string): VerifyCall;
}

/** A library or baseline under test, prepared for one body. */
export interface Contender extends Measured {
  /** The raw floor this contender is measured against, by name. */
  floor: 'floor' | 'floor + JSON.parse';
  /** Whether the call also parses the body. */
  parses: boolean;
}

const stripe = new Stripe('sk_test_bench');
// The other libraries expect their own secret formats; both are built from the same 32 bytes.
const SVIX_SECRET = `whsec_${Buffer.from(SECRET, 'hex').toString('base64')}`;
const STRIPE_SECRET = `whsec_${SECRET}`;

/**
 * The floor: exactly the HMAC and the constant-time compare, with `t` and `v1` handed over already
 * split out of the header and no timestamp check. No verifier can do less work.
 */
function floor(body: string, t: string, signature: string): boolean {
  const expected = createHmac('sha256', SECRET).update(`${t}.${body}`).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function ours(body: string) {
  const header = signWebhook(body, SECRET);
  const [t, signature] = [header.slice(2, header.indexOf(',')), header.slice(header.indexOf('v1=') + 3)];
  return { header, t, signature };
}

function svixHeaders(
  body: string,
  prefix: 'svix' | 'webhook',
  sign: (id: string, at: Date, body: string) => string,
) {
  const id = 'msg_bench';
  const at = new Date();
  return {
    [`${prefix}-id`]: id,
    [`${prefix}-timestamp`]: String(Math.floor(at.getTime() / 1000)),
    [`${prefix}-signature`]: sign(id, at, body),
  };
}

/** Every contender, in table order. */
export const contenders: Contender[] = [
  {
    name: 'raw node:crypto floor',
    floor: 'floor',
    parses: false,
    prepare(body) {
      const { t, signature } = ours(body);
      return () => floor(body, t, signature);
    },
  },
  {
    name: 'raw floor + JSON.parse',
    floor: 'floor + JSON.parse',
    parses: true,
    prepare(body) {
      const { t, signature } = ours(body);
      return () => floor(body, t, signature) && JSON.parse(body);
    },
  },
  {
    name: '@svc verifyWebhookSignature',
    floor: 'floor',
    parses: false,
    prepare(body) {
      const { header } = ours(body);
      return () => verifyWebhookSignature(body, header, SECRET);
    },
  },
  {
    name: '@svc verifyWebhook',
    floor: 'floor + JSON.parse',
    parses: true,
    prepare(body) {
      const { header } = ours(body);
      return () => verifyWebhook(body, header, SECRET);
    },
  },
  {
    name: '@svc verifyWebhookSignature, createHmac variant',
    floor: 'floor',
    parses: false,
    prepare(body) {
      const { header } = ours(body);
      return () => withCreateHmac.verifyWebhookSignature(body, header, SECRET);
    },
  },
  {
    name: '@svc verifyWebhook, createHmac variant',
    floor: 'floor + JSON.parse',
    parses: true,
    prepare(body) {
      const { header } = ours(body);
      return () => withCreateHmac.verifyWebhook(body, header, SECRET);
    },
  },
  {
    name: '@svc verifyWebhookSignatureAsync (Web Crypto)',
    floor: 'floor',
    parses: false,
    prepare(body) {
      const { header } = ours(body);
      return () => verifyWebhookSignatureAsync(body, header, SECRET);
    },
  },
  {
    name: 'stripe webhooks.signature.verifyHeader',
    floor: 'floor',
    parses: false,
    prepare(body) {
      const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_SECRET });
      const { signature } = stripe.webhooks;
      if (signature === null) throw new Error('stripe.webhooks.signature is not available');
      return () => signature.verifyHeader(body, header, STRIPE_SECRET);
    },
  },
  {
    name: 'stripe webhooks.constructEvent',
    floor: 'floor + JSON.parse',
    parses: true,
    prepare(body) {
      const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_SECRET });
      return () => stripe.webhooks.constructEvent(body, header, STRIPE_SECRET);
    },
  },
  {
    name: 'svix Webhook.verify',
    floor: 'floor + JSON.parse',
    parses: true,
    prepare(body) {
      const webhook = new SvixWebhook(SVIX_SECRET);
      const headers = svixHeaders(body, 'svix', (id, at, payload) => webhook.sign(id, at, payload));
      return () => webhook.verify(body, headers);
    },
  },
  {
    name: 'standardwebhooks Webhook.verify',
    floor: 'floor + JSON.parse',
    parses: true,
    prepare(body) {
      const webhook = new StandardWebhook(SVIX_SECRET);
      const headers = svixHeaders(body, 'webhook', (id, at, payload) => webhook.sign(id, at, payload));
      return () => webhook.verify(body, headers);
    },
  },
];

/**
 * Signing, measured in the same run for the HMAC comparison only: `@svc/webhooks-core` signs every
 * delivery attempt with `signWebhook`.
 */
export const signers: Measured[] = [
  {
    name: '@svc signWebhook',
    prepare: (body) => () => signWebhook(body, SECRET),
  },
  {
    name: '@svc signWebhook, createHmac variant',
    prepare: (body) => () => withCreateHmac.signWebhook(body, SECRET),
  },
];

/** The package's hand-built HMAC against `createHmac` in the same code path: rows of the comparison table. */
export const hmacPairs = [
  {
    path: 'verifyWebhookSignature',
    handBuilt: '@svc verifyWebhookSignature',
    createHmac: '@svc verifyWebhookSignature, createHmac variant',
  },
  {
    path: 'verifyWebhook',
    handBuilt: '@svc verifyWebhook',
    createHmac: '@svc verifyWebhook, createHmac variant',
  },
  { path: 'signWebhook', handBuilt: '@svc signWebhook', createHmac: '@svc signWebhook, createHmac variant' },
] as const;
