import { InvalidOptionError } from '@svc/webhooks-core';
import { signWebhook } from '@svc/webhooks-verify';
import { type Command, Option } from 'commander';
import type { CommandContext } from '../command-context';
import { PACKAGE_NAME } from '../exit-codes';
import { readBody, writeJson } from '../io';
import {
  assertMilliseconds,
  newMessageId,
  SIGNATURE_SCHEMES,
  type SignatureFamily,
  standardWebhookHeaders,
} from '../signature-headers';
import { parseCount } from '../values';

interface SignOptions {
  secret: string;
  body?: string;
  timestamp?: number;
  scheme: SignatureFamily;
  id?: string;
}

/**
 * `svc-webhooks sign [file]`: the signature header of a body as the service computes it: the
 * `X-Service-Signature` value, or with `--scheme standard` the three Standard Webhooks headers.
 */
export function registerSignCommand(program: Command, context: CommandContext): void {
  program
    .command('sign')
    .summary('print the signature header(s) of a body')
    .description(
      'Sign a body as the service does and print the signature. --scheme service (the default): the X-Service-Signature header value, t=<epoch ms>,v1=<hex> (HMAC-SHA256 of "<t>.<body>" with the signing secret). --scheme standard: the three Standard Webhooks headers, one "name: value" per line: webhook-id, webhook-timestamp (epoch seconds) and webhook-signature (v1,<base64 HMAC-SHA256 of "<id>.<seconds>.<body>">). The body is signed byte for byte: a trailing newline in the file is signed too.',
    )
    .argument('[file]', 'file holding the body; "-" or nothing reads stdin')
    .option('--body <text>', 'the body itself, instead of a file or stdin')
    .addOption(
      new Option(
        '--secret <secret>',
        'the signing secret (the 64 hex characters the API returned; with --scheme standard also its whsec_ form)',
      )
        .env('SVC_WEBHOOKS_SECRET')
        .makeOptionMandatory(),
    )
    .option(
      '--timestamp <ms>',
      'epoch milliseconds to sign with (default: now); Standard Webhooks signs its whole seconds',
      (text) => parseCount('timestamp', text),
    )
    .addOption(
      new Option('--scheme <scheme>', 'the signature to print').choices(SIGNATURE_SCHEMES).default('service'),
    )
    .option('--id <id>', 'the webhook-id to sign, with --scheme standard (default: a new msg_… id)')
    .addHelpText(
      'after',
      `
Examples:
  $ svc-webhooks sign body.json --secret "$SECRET"
  $ echo -n '{"webhookId":"whdel_1"}' | svc-webhooks sign --secret "$SECRET" --json
  $ svc-webhooks sign body.json --scheme standard --id whdel_1 --secret "$SECRET"`,
    )
    .action(async (file: string | undefined, options: SignOptions) => {
      const body = await readBody({ file, body: options.body }, context.io);
      const timestamp = options.timestamp ?? context.now();
      if (options.scheme === 'standard') {
        signStandard(context, body, options, timestamp);
        return;
      }
      if (options.id !== undefined) {
        throw new InvalidOptionError(
          PACKAGE_NAME,
          'id',
          '--id is the webhook-id of Standard Webhooks, which X-Service-Signature does not sign: add --scheme standard, or leave --id out.',
        );
      }
      const header = signWebhook(body, options.secret, timestamp);
      if (context.json()) writeJson(context.io, { header, timestamp });
      else context.io.stdout(`${header}\n`);
    });
}

/** Prints the three Standard Webhooks headers, as `name: value` lines or, with `--json`, an object. */
function signStandard(
  context: CommandContext,
  body: Uint8Array,
  options: SignOptions,
  timestamp: number,
): void {
  if (options.timestamp !== undefined) assertMilliseconds('timestamp', options.timestamp);
  const id = options.id ?? newMessageId();
  const headers = standardWebhookHeaders(body, options.secret, id, timestamp);
  if (context.json()) {
    // `timestamp` in epoch ms, as everywhere in the CLI's JSON: webhook-timestamp × 1000.
    writeJson(context.io, { headers, id, timestamp: Math.floor(timestamp / 1000) * 1000 });
    return;
  }
  for (const [name, value] of Object.entries(headers)) context.io.stdout(`${name}: ${value}\n`);
}
