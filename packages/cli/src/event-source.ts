import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createEventCatalogue,
  type EventCatalogue,
  type EventDefinition,
  InvalidOptionError,
  webhookTestEvent,
} from '@svc/webhooks-core';
import { PACKAGE_NAME } from './exit-codes';

/**
 * The event types a command knows: the built-in catalogue, or the one a host's module exports
 * (`--events ./dist/webhook-events.js`), plus `webhook_test`, which every receiver can get from the test
 * endpoint.
 */
export async function loadEventDefinitions(
  modulePath: string | undefined,
  cwd: string,
): Promise<readonly EventDefinition[]> {
  const catalogue =
    modulePath === undefined ? createEventCatalogue() : await importCatalogue(modulePath, cwd);
  return [...catalogue.definitions, webhookTestEvent];
}

/** The definition of `eventType`, or a usage error listing the known types. */
export function findEvent(definitions: readonly EventDefinition[], eventType: string): EventDefinition {
  const found = definitions.find((definition) => definition.type === eventType);
  if (found) return found;
  throw new InvalidOptionError(
    PACKAGE_NAME,
    'eventType',
    `Unknown event type "${eventType}". Known: ${definitions.map((definition) => definition.type).join(', ')}. A host's own types need --events <module>.`,
  );
}

/**
 * Imports a host's events module and takes its catalogue from the `events` export or the default one.
 * The module is JavaScript (a build output), or TypeScript where the Node that runs the CLI strips types.
 */
async function importCatalogue(modulePath: string, cwd: string): Promise<EventCatalogue> {
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(resolve(cwd, modulePath)).href)) as Record<string, unknown>;
  } catch (cause) {
    throw new InvalidOptionError(
      PACKAGE_NAME,
      'events',
      `Cannot load the events module ${modulePath}: ${(cause as Error).message}`,
    );
  }
  const candidate = loaded.events ?? loaded.default;
  if (!isCatalogue(candidate)) {
    throw new InvalidOptionError(
      PACKAGE_NAME,
      'events',
      `${modulePath} exports no event catalogue: export the result of createEventCatalogue([...]) as \`events\` (or as the default export).`,
    );
  }
  return candidate;
}

/** Duck-typed, so a catalogue built by the host's own copy of @svc/webhooks-core is accepted too. */
function isCatalogue(value: unknown): value is EventCatalogue {
  const candidate = value as Partial<EventCatalogue> | null | undefined;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    Array.isArray(candidate.definitions) &&
    typeof candidate.get === 'function'
  );
}
