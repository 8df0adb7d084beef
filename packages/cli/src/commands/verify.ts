import {
  isWebhookVerificationError,
  parseSignatureHeader,
  STANDARD_WEBHOOK_HEADERS,
  type VerifyWebhookOptions,
  verifyStandardWebhook,
  verifyStandardWebhookSignature,
  verifyWebhook,
  verifyWebhookSignature,
  type WebhookVerificationError,
} from '@svc/webhooks-verify';
import { type Command, Option } from 'commander';
import type { CommandContext } from '../command-context';
import { EXIT_CODES } from '../exit-codes';
import { readBody, writeJson } from '../io';
import { collect, parseCount } from '../values';
import {
  type DeliveryHeaders,
  readDeliveryHeaders,
  VERIFY_SCHEMES,
  type VerifyScheme,
} from './verify-headers';

interface VerifyOptions {
  header: string[];
  scheme: VerifyScheme;
  secret: string[];
  body?: string;
  tolerance?: number;
  ignoreTimestamp?: boolean;
  now?: number;
}

/** `svc-webhooks verify [file]`: checks a delivery as a receiver would, and explains a failure. */
export function registerVerifyCommand(program: Command, context: CommandContext): void {
  program
    .command('verify')
    .summary('check a delivery’s signature and explain a failure')
    .description(
      'Verify a delivery body against its signature headers as @svc/webhooks-verify does, in the same order (headers, secret, timestamp, signature, JSON), and explain the first failure with the same code and message. Either scheme: the X-Service-Signature value, or the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature (v1 HMAC and v1a Ed25519 entries). Exits 1 when the delivery does not verify.',
    )
    .argument('[file]', 'file holding the raw body; "-" or nothing reads stdin')
    .requiredOption(
      '--header <value>',
      'the X-Service-Signature value, t=<ms>,v1=<hex>, or a header as "name: value" (repeat it for webhook-id, webhook-timestamp and webhook-signature)',
      collect,
    )
    .addOption(
      new Option(
        '--scheme <scheme>',
        'which signature to verify: auto (webhook-signature if given, else X-Service-Signature), service or standard',
      )
        .choices(VERIFY_SCHEMES)
        .default('auto'),
    )
    .addOption(
      new Option(
        '--secret <secret>',
        'the signing secret (hex, or its whsec_ form for Standard Webhooks) or a whpk_ public key for v1a; repeat it for both keys of a rotation',
      )
        .env('SVC_WEBHOOKS_SECRET')
        .argParser(collect)
        .makeOptionMandatory(),
    )
    .option('--body <text>', 'the body itself, instead of a file or stdin')
    .option(
      '--tolerance <ms>',
      'how far the signing time (t, or webhook-timestamp) may be from now (default 300000: 5 minutes)',
      (text) => parseCount('tolerance', text),
    )
    .option('--ignore-timestamp', 'skip the age check, to verify a delivery copied from a log')
    .option('--now <ms>', 'the current time in epoch ms (default: now)', (text) => parseCount('now', text))
    .addHelpText(
      'after',
      `
Examples:
  $ svc-webhooks verify body.json --header "t=1767225600000,v1=5f2b…" --secret "$SECRET"
  $ svc-webhooks verify body.json --header "$HEADER" --secret "$NEW" --secret "$OLD" --ignore-timestamp
  $ svc-webhooks verify body.json --secret "$SECRET" \\
      --header "webhook-id: whdel_1" --header "webhook-timestamp: 1767225600" --header "webhook-signature: v1,K5oZ…"
  $ svc-webhooks verify body.json --secret whpk_… --header …   # v1a (Ed25519) with the agency's public key`,
    )
    .action(async (file: string | undefined, options: VerifyOptions) => {
      const delivery = readDeliveryHeaders(options.header, options.scheme);
      const body = await readBody({ file, body: options.body }, context.io);
      const verifyOptions: VerifyWebhookOptions = {
        toleranceMs: options.ignoreTimestamp ? Number.POSITIVE_INFINITY : options.tolerance,
        now: options.now ?? context.now(),
      };
      try {
        const envelope =
          delivery.scheme === 'service'
            ? verifyWebhook(body, delivery.header, options.secret, verifyOptions)
            : verifyStandardWebhook(body, delivery.headers, options.secret, verifyOptions);
        reportValid(context, delivery, envelope);
      } catch (error) {
        // A bad option of ours (invalid_option) is a usage error, not a verdict on the delivery.
        if (!isWebhookVerificationError(error) || error.code === 'invalid_option') throw error;
        const hint =
          error.code === 'signature_mismatch'
            ? diagnose(body, delivery, options.secret, verifyOptions)
            : null;
        reportInvalid(context, error, hint);
      }
    });
}

type Envelope = { webhookId?: unknown; eventType?: unknown; attempt?: unknown };

function reportValid(context: CommandContext, delivery: DeliveryHeaders, envelope: Envelope): void {
  const signed = signedAt(delivery);
  const summary = {
    valid: true,
    scheme: delivery.scheme,
    timestamp: signed.timestamp,
    ...(signed.id === undefined ? {} : { id: signed.id }),
    webhookId: envelope.webhookId,
    eventType: envelope.eventType,
  };
  if (context.json()) {
    writeJson(context.io, summary);
    return;
  }
  context.io.stdout(`valid: ${signed.text}\n`);
  context.io.stdout(
    `${String(envelope.eventType)} ${String(envelope.webhookId)}, attempt ${String(envelope.attempt)}\n`,
  );
}

/** When a verified delivery was signed (epoch ms), its `webhook-id`, and the line that says so. */
function signedAt(delivery: DeliveryHeaders): { timestamp: number; id?: string; text: string } {
  if (delivery.scheme === 'service') {
    const { timestamp } = parseSignatureHeader(delivery.header);
    return { timestamp, text: `signed at ${new Date(timestamp).toISOString()} (t=${timestamp})` };
  }
  // Verified, so the header is plain digits of epoch seconds.
  const seconds = delivery.headers[STANDARD_WEBHOOK_HEADERS.timestamp] as string;
  const id = delivery.headers[STANDARD_WEBHOOK_HEADERS.id] as string;
  const timestamp = Number(seconds) * 1000;
  return {
    timestamp,
    id,
    text: `Standard Webhooks, signed at ${new Date(timestamp).toISOString()} (webhook-timestamp=${seconds}), webhook-id ${id}`,
  };
}

function reportInvalid(context: CommandContext, error: WebhookVerificationError, hint: string | null): void {
  context.exit(EXIT_CODES.rejected);
  if (context.json()) {
    writeJson(context.io, { valid: false, code: error.code, message: error.message, hint });
    return;
  }
  context.io.stdout(`invalid: ${error.code}\n${error.message}\n`);
  if (hint !== null) context.io.stdout(`hint: ${hint}\n`);
}

/**
 * For a signature that matches no secret, tries the variants of the body and secret that most often
 * explain it, and says which one would have matched.
 */
function diagnose(
  body: Uint8Array,
  delivery: DeliveryHeaders,
  givenSecrets: string[],
  verifyOptions: VerifyWebhookOptions,
): string | null {
  const matches = (candidate: Uint8Array | string, secrets: string[]) => {
    try {
      if (delivery.scheme === 'service') {
        verifyWebhookSignature(candidate, delivery.header, secrets, verifyOptions);
      } else {
        verifyStandardWebhookSignature(candidate, delivery.headers, secrets, verifyOptions);
      }
      return true;
    } catch {
      return false;
    }
  };
  const text = new TextDecoder().decode(body);
  const trimmed = text.replace(/\r?\n$/, '');
  if (trimmed !== text && matches(trimmed, givenSecrets)) {
    return 'the body ends with a newline that was not signed (an editor or `echo` added it); without it the signature matches. Verify the bytes exactly as received.';
  }
  const compact = compactJson(text);
  if (compact !== null && compact !== text && matches(compact, givenSecrets)) {
    return 'this body is a re-formatted copy: the signed body is the same JSON without the whitespace. Verify the raw body as received, never JSON that was parsed and serialised again.';
  }
  const secrets = givenSecrets.map((secret) => secret.trim());
  if (secrets.some((secret, index) => secret !== givenSecrets[index]) && matches(body, secrets)) {
    return 'a secret has spaces or a newline around it; without them the signature matches.';
  }
  return null;
}

function compactJson(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
}
