import {
  isWebhookVerificationError,
  parseSignatureHeader,
  type VerifyWebhookOptions,
  verifyWebhook,
  verifyWebhookSignature,
  type WebhookVerificationError,
} from '@svc/webhooks-verify';
import { type Command, Option } from 'commander';
import type { CommandContext } from '../command-context';
import { EXIT_CODES } from '../exit-codes';
import { readBody, writeJson } from '../io';
import { collect, parseCount } from '../values';

interface VerifyOptions {
  header: string;
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
      'Verify a delivery body against its X-Service-Signature header as @svc/webhooks-verify does, in the same order (header, secret, timestamp, signature, JSON), and explain the first failure with the same code and message. Exits 1 when the delivery does not verify.',
    )
    .argument('[file]', 'file holding the raw body; "-" or nothing reads stdin')
    .requiredOption('--header <value>', 'the X-Service-Signature header value, t=<ms>,v1=<hex>')
    .addOption(
      new Option(
        '--secret <secret>',
        'the signing secret; repeat it for the old and new secret of a rotation',
      )
        .env('SVC_WEBHOOKS_SECRET')
        .argParser(collect)
        .makeOptionMandatory(),
    )
    .option('--body <text>', 'the body itself, instead of a file or stdin')
    .option('--tolerance <ms>', 'how far t may be from now (default 300000: 5 minutes)', (text) =>
      parseCount('tolerance', text),
    )
    .option('--ignore-timestamp', 'skip the age check, to verify a delivery copied from a log')
    .option('--now <ms>', 'the current time in epoch ms (default: now)', (text) => parseCount('now', text))
    .addHelpText(
      'after',
      `
Examples:
  $ svc-webhooks verify body.json --header "t=1767225600000,v1=5f2b…" --secret "$SECRET"
  $ svc-webhooks verify body.json --header "$HEADER" --secret "$NEW" --secret "$OLD" --ignore-timestamp`,
    )
    .action(async (file: string | undefined, options: VerifyOptions) => {
      const body = await readBody({ file, body: options.body }, context.io);
      const verifyOptions: VerifyWebhookOptions = {
        toleranceMs: options.ignoreTimestamp ? Number.POSITIVE_INFINITY : options.tolerance,
        now: options.now ?? context.now(),
      };
      try {
        const envelope = verifyWebhook(body, options.header, options.secret, verifyOptions);
        reportValid(context, options.header, envelope);
      } catch (error) {
        // A bad option of ours (invalid_option) is a usage error, not a verdict on the delivery.
        if (!isWebhookVerificationError(error) || error.code === 'invalid_option') throw error;
        const hint = error.code === 'signature_mismatch' ? diagnose(body, options, verifyOptions) : null;
        reportInvalid(context, error, hint);
      }
    });
}

function reportValid(
  context: CommandContext,
  header: string,
  envelope: { webhookId?: unknown; eventType?: unknown; attempt?: unknown },
): void {
  const { timestamp } = parseSignatureHeader(header);
  const summary = { valid: true, timestamp, webhookId: envelope.webhookId, eventType: envelope.eventType };
  if (context.json()) {
    writeJson(context.io, summary);
    return;
  }
  context.io.stdout(`valid: signed at ${new Date(timestamp).toISOString()} (t=${timestamp})\n`);
  context.io.stdout(
    `${String(envelope.eventType)} ${String(envelope.webhookId)}, attempt ${String(envelope.attempt)}\n`,
  );
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
  options: VerifyOptions,
  verifyOptions: VerifyWebhookOptions,
): string | null {
  const matches = (candidate: Uint8Array | string, secrets: string[]) => {
    try {
      verifyWebhookSignature(candidate, options.header, secrets, verifyOptions);
      return true;
    } catch {
      return false;
    }
  };
  const text = new TextDecoder().decode(body);
  const trimmed = text.replace(/\r?\n$/, '');
  if (trimmed !== text && matches(trimmed, options.secret)) {
    return 'the body ends with a newline that was not signed (an editor or `echo` added it); without it the signature matches. Verify the bytes exactly as received.';
  }
  const compact = compactJson(text);
  if (compact !== null && compact !== text && matches(compact, options.secret)) {
    return 'this body is a re-formatted copy: the signed body is the same JSON without the whitespace. Verify the raw body as received, never JSON that was parsed and serialised again.';
  }
  const secrets = options.secret.map((secret) => secret.trim());
  if (secrets.some((secret, index) => secret !== options.secret[index]) && matches(body, secrets)) {
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
