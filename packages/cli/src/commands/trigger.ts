import { randomUUID } from 'node:crypto';
import { buildExampleEnvelope, type EventDefinition, InvalidOptionError } from '@svc/webhooks-core';
import { buildEventEnvelopeSchema } from '@svc/webhooks-core/schemas';
import { type Command, Option } from 'commander';
import { applyAssignments, parseAssignment } from '../assignments';
import type { CommandContext } from '../command-context';
import { findEvent, loadEventDefinitions } from '../event-source';
import { EXIT_CODES, PACKAGE_NAME } from '../exit-codes';
import { parseHttpUrl, sendHttpRequest } from '../http-client';
import { writeJson } from '../io';
import { DELIVERY_SCHEMES, type DeliveryScheme, deliverySignatureHeaders } from '../signature-headers';
import { collect, parseCount, readCa } from '../values';

interface TriggerOptions {
  url: string;
  secret: string;
  scheme: DeliveryScheme;
  set: string[];
  events?: string;
  ca?: string;
  timeout: number;
}

/** How much of the receiver's answer is shown: what the service keeps as a delivery's excerpt. */
const EXCERPT_BYTES = 4096;

/**
 * `svc-webhooks trigger <eventType>`: the event's example envelope, signed, POSTed to a URL the developer
 * chose. No URL policy applies: it is their own machine, so localhost and plain http are fine.
 */
export function registerTriggerCommand(program: Command, context: CommandContext): void {
  program
    .command('trigger')
    .summary('send an event’s example, signed, to your receiver')
    .description(
      "Send the example envelope of an event type to your receiver, signed with your secret and with the headers the service sends under the agency's signature scheme (--scheme service: X-Service-Signature; standard: webhook-id, webhook-timestamp, webhook-signature; both: all of them; always X-Service-Webhook-Id and X-Service-Event-Type), and print the status and the start of the answer. Any URL you choose is allowed, localhost and http included. Exits 1 unless the receiver answers 2xx.",
    )
    .argument('<eventType>', 'the event type, e.g. job_created (see `svc-webhooks schema`)')
    .requiredOption('--url <url>', 'your receiver, e.g. http://localhost:3000/webhooks')
    .addOption(
      new Option(
        '--secret <secret>',
        'the signing secret your receiver verifies with (hex; with --scheme standard also its whsec_ form)',
      )
        .env('SVC_WEBHOOKS_SECRET')
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--scheme <scheme>', "the signature headers to send, as the agency's signatureScheme")
        .choices(DELIVERY_SCHEMES)
        .default('service'),
    )
    .option(
      '--set <path=value>',
      'change a field before signing, e.g. metadata.jobNumber=7 or deliveredAt=1700000000000 (repeatable; JSON values, else text)',
      collect,
      [],
    )
    .option(
      '--events <module>',
      'a JavaScript module exporting your EventCatalogue as `events`, for your own event types',
    )
    .option('--ca <file>', 'PEM certificate(s) to trust for an https receiver with its own certificate')
    .option(
      '--timeout <ms>',
      'how long to wait for the answer',
      (text) => parseCount('timeout', text),
      10_000,
    )
    .addHelpText(
      'after',
      `
The signature's t is the envelope's deliveredAt (now, unless --set changes it), as the service signs;
webhook-timestamp is its whole seconds, and webhook-id the envelope's webhookId. No v1a (Ed25519)
signature is sent: the agency's private keys never leave the service.

Examples:
  $ svc-webhooks trigger job_created --url http://localhost:3000/webhooks --secret "$SECRET"
  $ svc-webhooks trigger job_created --url http://localhost:3000/webhooks --scheme standard
  $ svc-webhooks trigger job_cancelled --url https://localhost:8443/hooks --ca dev-cert.pem \\
      --set metadata.reason="Duplicate request" --set attempt=2`,
    )
    .action(async (eventType: string, options: TriggerOptions) => {
      const url = parseHttpUrl(options.url, 'url');
      const ca = readCa(options.ca, context.io.cwd);
      const definition = findEvent(await loadEventDefinitions(options.events, context.io.cwd), eventType);
      const envelope = buildTriggerEnvelope(definition, options.set, context.now());
      const body = JSON.stringify(envelope);
      const signedAt = Number.isSafeInteger(envelope.deliveredAt)
        ? (envelope.deliveredAt as number)
        : context.now();
      const response = await sendHttpRequest({
        method: 'POST',
        url,
        headers: {
          'content-type': 'application/json',
          ...deliverySignatureHeaders(
            options.scheme,
            body,
            options.secret,
            String(envelope.webhookId),
            signedAt,
          ),
          'x-service-webhook-id': String(envelope.webhookId),
          'x-service-event-type': String(envelope.eventType),
        },
        body,
        ...(ca === undefined ? {} : { ca }),
        timeoutMs: options.timeout,
      });
      const ok = response.status >= 200 && response.status <= 299;
      if (!ok) context.exit(EXIT_CODES.rejected);
      const excerpt = response.body.slice(0, EXCERPT_BYTES);
      const result = {
        ok,
        statusCode: response.status,
        scheme: options.scheme,
        eventType,
        webhookId: envelope.webhookId,
        url: url.href,
        excerpt,
      };
      if (context.json()) {
        writeJson(context.io, result);
        return;
      }
      const signedBy = options.scheme === 'service' ? '' : ` (${options.scheme})`;
      context.io.stdout(`→ POST ${url.href} ${eventType} ${String(envelope.webhookId)}${signedBy}\n`);
      context.io.stdout(`← ${response.status} ${response.statusText}\n`);
      if (excerpt.trim() !== '') context.io.stdout(`${excerpt}${excerpt.endsWith('\n') ? '' : '\n'}`);
      if (response.status >= 300 && response.status <= 399) {
        context.io.stderr('Redirects are not followed (the service does not follow them either).\n');
      }
    });
}

/** The example with a fresh webhookId (receivers deduplicate on it) and `--set` applied, still valid. */
function buildTriggerEnvelope(
  definition: EventDefinition,
  assignments: readonly string[],
  now: number,
): Record<string, unknown> {
  const example = buildExampleEnvelope(definition, { webhookId: `whdel_cli_${randomUUID()}`, now });
  const envelope = applyAssignments({ ...example }, assignments.map(parseAssignment));
  const checked = buildEventEnvelopeSchema(definition).safeParse(envelope);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new InvalidOptionError(
      PACKAGE_NAME,
      'set',
      `After --set, the envelope is no longer a valid ${definition.type}: ${issue?.path.join('.') || 'envelope'}: ${issue?.message}. Values are JSON when they parse as JSON (7, true, null, "007"), text otherwise.`,
    );
  }
  return envelope;
}
