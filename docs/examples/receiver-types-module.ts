import { writeFileSync } from 'node:fs';
import { buildEventTypesModule } from '@svc/webhooks-core/schemas';
import { events } from './custom-events';

/**
 * In the host's build: a types-only module generated from the catalogue, to publish to receivers in other
 * codebases (like any generated client). They pass its map to verifyWebhook<AcmeWebhookEvents>(…).
 */
export function writeReceiverTypes(path: string): void {
  writeFileSync(path, buildEventTypesModule(events, { mapName: 'AcmeWebhookEvents' }));
}
