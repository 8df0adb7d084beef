import { signWebhook } from '@svc/webhooks-verify';
import { type Command, Option } from 'commander';
import type { CommandContext } from '../command-context';
import { readBody, writeJson } from '../io';
import { parseCount } from '../values';

interface SignOptions {
  secret: string;
  body?: string;
  timestamp?: number;
}

/** `svc-webhooks sign [file]`: the X-Service-Signature value of a body, as the service computes it. */
export function registerSignCommand(program: Command, context: CommandContext): void {
  program
    .command('sign')
    .summary('print the X-Service-Signature header of a body')
    .description(
      'Sign a body as the service does (HMAC-SHA256 of "<t>.<body>" with the signing secret) and print the X-Service-Signature header value, t=<epoch ms>,v1=<hex>. The body is signed byte for byte: a trailing newline in the file is signed too.',
    )
    .argument('[file]', 'file holding the body; "-" or nothing reads stdin')
    .option('--body <text>', 'the body itself, instead of a file or stdin')
    .addOption(
      new Option('--secret <secret>', 'the signing secret (the 64 hex characters the API returned)')
        .env('SVC_WEBHOOKS_SECRET')
        .makeOptionMandatory(),
    )
    .option('--timestamp <ms>', 'epoch milliseconds to sign with (default: now)', (text) =>
      parseCount('timestamp', text),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ svc-webhooks sign body.json --secret "$SECRET"
  $ echo -n '{"webhookId":"whdel_1"}' | svc-webhooks sign --secret "$SECRET" --json`,
    )
    .action(async (file: string | undefined, options: SignOptions) => {
      const body = await readBody({ file, body: options.body }, context.io);
      const timestamp = options.timestamp ?? context.now();
      const header = signWebhook(body, options.secret, timestamp);
      if (context.json()) writeJson(context.io, { header, timestamp });
      else context.io.stdout(`${header}\n`);
    });
}
