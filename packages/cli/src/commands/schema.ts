import { buildExampleEnvelope } from '@svc/webhooks-core';
import { buildEventJsonSchema } from '@svc/webhooks-core/schemas';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { findEvent, loadEventDefinitions } from '../event-source';
import { writeJson } from '../io';

interface SchemaOptions {
  example?: boolean;
  events?: string;
}

/** `svc-webhooks schema [eventType]`: the event types, or one type's JSON Schema or example. */
export function registerSchemaCommand(program: Command, context: CommandContext): void {
  program
    .command('schema')
    .summary('list the event types, or print one’s JSON Schema')
    .description(
      'Without an event type, list the event types (with --json: every type’s JSON Schema, keyed by type). With one, print the JSON Schema (2020-12) of its envelope, metadata included, generated from the zod schemas the service validates with; with --example, its example envelope instead.',
    )
    .argument('[eventType]', 'the event type, e.g. job_created')
    .option('--example', 'print the example envelope instead of the schema')
    .option(
      '--events <module>',
      'a JavaScript module exporting your EventCatalogue as `events`, for your own event types',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ svc-webhooks schema
  $ svc-webhooks schema job_created > job_created.schema.json
  $ svc-webhooks schema quote_approved --example | svc-webhooks sign --secret "$SECRET"`,
    )
    .action(async (eventType: string | undefined, options: SchemaOptions) => {
      const definitions = await loadEventDefinitions(options.events, context.io.cwd);
      if (eventType !== undefined) {
        const definition = findEvent(definitions, eventType);
        const schema = buildEventJsonSchema(definition);
        // The schema's example is the one at a fixed time, so the output is the same on every run; a type
        // without one gets buildExampleEnvelope's error, which says how to add it.
        const example = (schema.examples as unknown[] | undefined)?.[0] ?? buildExampleEnvelope(definition);
        writeJson(context.io, options.example ? example : schema);
        return;
      }
      if (context.json()) {
        writeJson(
          context.io,
          Object.fromEntries(
            definitions.map((definition) => [definition.type, buildEventJsonSchema(definition)]),
          ),
        );
        return;
      }
      const width = Math.max(...definitions.map((definition) => definition.type.length));
      for (const definition of definitions) {
        const entity = `(${definition.entityType ?? 'any entity'})`;
        context.io.stdout(
          `${definition.type.padEnd(width)}  ${entity.padEnd(12)} ${definition.description ?? ''}\n`,
        );
      }
    });
}
