import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildExampleEnvelope, builtInEvents, webhookTestEvent } from '@svc/webhooks-core';
import { signWebhook } from '@svc/webhooks-verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeDelivery } from '../examples/host-event-types';
import { writeReceiverTypes } from '../examples/receiver-types-module';
import { createTypedReceiver } from '../examples/typed-receiver';

const SECRET = 'c'.repeat(64);
const lines: string[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = createTypedReceiver(SECRET, (line) => lines.push(line));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function post(envelope: object, secret = SECRET): Promise<number> {
  const body = JSON.stringify(envelope);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signWebhook(body, secret) },
    body,
  });
  return response.status;
}

describe('the typed receiver sample', () => {
  it('accepts every built-in event type’s example and handles each by its own metadata', async () => {
    lines.length = 0;
    for (const definition of [...builtInEvents, webhookTestEvent]) {
      const envelope = buildExampleEnvelope(definition, { webhookId: `whdel_${definition.type}` });
      expect(await post(envelope)).toBe(204);
    }
    expect(lines).toEqual([
      'job #1042 created (property prop_2Ks8Vn)',
      'job_completed about job job_7Hq2kX',
      'job #1042 cancelled: The tenant fixed the leak.',
      'property created at 12 Loop Street, Gardens, Cape Town, 8001',
      'quote quote_4Rm7Jd approved for job #1042',
      'invoice_approved about invoice inv_6Wc3Hs',
      'job_fulfilment_rating_submitted about job job_7Hq2kX',
      'message_sent about message msg_1Pv9Ga',
      'test delivery for agency_9Wd4Rt',
    ]);
  });

  it('handles a delivery that arrives twice once, and answers 401 to a wrong signature', async () => {
    lines.length = 0;
    const envelope = buildExampleEnvelope(builtInEvents[2], { webhookId: 'whdel_twice' });
    expect(await post(envelope)).toBe(204);
    expect(await post(envelope)).toBe(204);
    expect(await post(envelope, 'd'.repeat(64))).toBe(401);
    expect(lines).toEqual([
      'job #1042 cancelled: The tenant fixed the leak.',
      'rejected: signature_mismatch',
    ]);
  });
});

describe('the host event types sample', () => {
  it('narrows the host’s own event types', () => {
    const body = JSON.stringify({
      webhookId: 'whdel_1',
      eventType: 'job_fulfilment_started',
      entityType: 'job',
      entityId: 'job-1',
      parentEntityId: null,
      createdById: null,
      createdByRole: null,
      metadata: {
        fulfilmentId: 'f-1',
        jobId: 'job-1',
        agencyId: 'a-1',
        serviceProviderId: 'sp-1',
        startedAt: 5,
      },
      createdOn: 5,
      deliveredAt: 5,
      attempt: 1,
    });
    const rawBody = Buffer.from(body);
    expect(describeDelivery(rawBody, signWebhook(body, SECRET), SECRET)).toBe('sp-1 started job-1 at 5');
  });

  it('writes a types-only module with the host’s map for receivers elsewhere', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'receiver-types-')), 'acme-webhook-events.ts');
    writeReceiverTypes(path);
    const source = readFileSync(path, 'utf8');
    expect(source).toContain('export type AcmeWebhookEvents = {');
    expect(source).toContain('  job_fulfilment_started: JobFulfilmentStartedMetadata;');
    expect(source).toMatch(/export type JobCompletedMetadata = \{[^}]*completedAt: number;/);
  });
});
