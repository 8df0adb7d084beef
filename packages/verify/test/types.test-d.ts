// Compile-time checks, run by `pnpm --filter @svc/webhooks-verify typecheck` (tsc covers test/).
import {
  type ParsedSignatureHeader,
  parseSignatureHeader,
  publicKeyToJwk,
  type StandardKeys,
  type StandardVerifiedSignature,
  type StandardWebhookJwk,
  signStandardWebhook,
  type VerifiedSignature,
  verifyStandardWebhook,
  verifyStandardWebhookSignature,
  verifyWebhook,
  verifyWebhookSignature,
  type WebhookEnvelope,
  type WebhookEvent,
} from '@svc/webhooks-verify';
import { verifyWebhookMiddleware } from '@svc/webhooks-verify/express';
import { verifyWebhookRequest, webhookHandler } from '@svc/webhooks-verify/fetch';
import {
  verifyStandardWebhookSignatureAsync,
  verifyWebhookAsync,
  verifyWebhookSignatureAsync,
} from '@svc/webhooks-verify/web';
import express from 'express';
import { expectTypeOf } from 'vitest';

declare const body: Buffer;
declare const header: string | string[] | undefined;

interface QuoteApproved {
  fulfilmentId: string;
  quoteStatus: string;
}
type QuoteEvents = { quote_approved: QuoteApproved };

expectTypeOf(verifyWebhook(body, header, 's')).toEqualTypeOf<WebhookEvent>();
expectTypeOf(verifyWebhook<QuoteEvents>(body, header, ['a', 'b']).metadata).toEqualTypeOf<QuoteApproved>();
// Every verified envelope is still a WebhookEnvelope, for code written against the plain envelope type.
expectTypeOf(verifyWebhook(body, header, 's')).toExtend<WebhookEnvelope>();
expectTypeOf(verifyWebhookSignature('x', null, 's')).toEqualTypeOf<VerifiedSignature>();
expectTypeOf(parseSignatureHeader('t=1,v1=aa')).toEqualTypeOf<ParsedSignatureHeader>();
expectTypeOf(verifyWebhookAsync<QuoteEvents>(new Uint8Array(), 'h', 's')).resolves.toEqualTypeOf<
  WebhookEnvelope<QuoteApproved, 'quote_approved'>
>();
expectTypeOf(
  verifyWebhookRequest(new Request('https://x.example'), 's'),
).resolves.toEqualTypeOf<WebhookEvent>();
expectTypeOf(webhookHandler('s', () => new Response())).toEqualTypeOf<
  (request: Request) => Promise<Response>
>();

// The middleware slots into Express's own handler types, and req.webhook is typed in later handlers.
const app = express();
app.post(
  '/hooks',
  express.raw({ type: 'application/json' }),
  verifyWebhookMiddleware({ secret: 's' }),
  (req) => {
    expectTypeOf(req.webhook).toEqualTypeOf<WebhookEvent | undefined>();
  },
);

// @ts-expect-error: exactly one secret source may be given
verifyWebhookMiddleware({ secret: 's', getSecret: () => 's' });
// @ts-expect-error: a secret source is required
verifyWebhookMiddleware({ toleranceMs: 1 });

import type { IncomingHttpHeaders } from 'node:http';

// Standard Webhooks: headers objects (Node's and Fetch's), key material, results.

declare const nodeHeaders: IncomingHttpHeaders;
declare const jwks: { keys: StandardWebhookJwk[] };

expectTypeOf(verifyWebhook(body, nodeHeaders, 's')).toEqualTypeOf<WebhookEvent>();
expectTypeOf(
  verifyWebhook<QuoteEvents>(body, new Headers(), { keys: jwks.keys }).metadata,
).toEqualTypeOf<QuoteApproved>();
expectTypeOf(
  verifyWebhookSignature(body, nodeHeaders, 's', { scheme: 'standard' }),
).toEqualTypeOf<VerifiedSignature>();
expectTypeOf(verifyStandardWebhook(body, nodeHeaders, jwks)).toEqualTypeOf<WebhookEvent>();
expectTypeOf(
  verifyStandardWebhookSignature(body, nodeHeaders, ['s', 'whpk_x']),
).toEqualTypeOf<StandardVerifiedSignature>();
expectTypeOf(
  verifyStandardWebhookSignatureAsync(body, new Headers(), 's'),
).resolves.toEqualTypeOf<StandardVerifiedSignature>();
expectTypeOf(
  verifyWebhookSignatureAsync(body, new Headers(), 's'),
).resolves.toEqualTypeOf<VerifiedSignature>();
expectTypeOf(signStandardWebhook('b', 's', 'id', 1)).toEqualTypeOf<string>();
expectTypeOf(publicKeyToJwk('whpk_x', 'k')).toExtend<NonNullable<StandardKeys['keys']>[number]>();
// @ts-expect-error: the scheme is 'service' or 'standard'
verifyWebhook(body, nodeHeaders, 's', { scheme: 'both' });
