/**
 * Envelope serialisation: core's field-by-field `serializeEnvelope` against the plain
 * `JSON.stringify` of the same envelope (keys already in the spec's order), on the
 * delivery benchmark's event and on a larger metadata object. Both give the same bytes
 * (core's envelope tests hold them to that); the question is whether the hand-built
 * one saves enough per attempt to be worth reading.
 *
 * Run: pnpm --filter @svc/bench run envelope
 */
// An engine internal, read from the source: it is deliberately not part of core's public entries.
import { serializeEnvelope } from '../../packages/core/src/delivery/envelope';
import type { WebhookEnvelope } from '../../packages/core/src/index';
import { describeMachine, markdownTable, writeBenchSection } from '../lib/report';
import { measure } from '../verify/measure';

const CALLS_PER_SAMPLE = 1_000;

function jobCancelled(): WebhookEnvelope {
  const now = Date.now();
  return {
    webhookId: 'whdel_0194f6c2-7d35-7a2b-9c1e-3f5a8b2d4e6f',
    eventType: 'job_cancelled',
    entityType: 'job',
    entityId: 'job-1042',
    parentEntityId: null,
    createdById: 'agent-1',
    createdByRole: 'Agent',
    metadata: {
      jobId: 'job-1042',
      agencyId: 'agency-7',
      jobNumber: 1042,
      reason: 'Tenant withdrew the request',
    },
    createdOn: now,
    deliveredAt: now,
    attempt: 1,
  };
}

function propertyCreated(): WebhookEnvelope {
  return {
    ...jobCancelled(),
    eventType: 'property_created',
    entityType: 'property',
    metadata: {
      propertyId: 'property-88',
      agencyId: 'agency-7',
      address: {
        formatted: '12 Long Street, Gardens, Cape Town, Western Cape, 8001',
        street: { name: 'Long Street', number: '12' },
        suburb: 'Gardens',
        city: 'Cape Town',
        province: 'Western Cape',
        postalCode: '8001',
        unitNumber: null,
      },
      estateId: null,
      estateName: null,
      managingAgentId: 'agent-1',
      vacant: true,
    },
  };
}

async function main(): Promise<void> {
  const cases = [
    { name: 'job_cancelled (bench/delivery event)', envelope: jobCancelled() },
    { name: 'property_created (nested metadata)', envelope: propertyCreated() },
  ];
  const rows: string[][] = [];
  for (const { name, envelope } of cases) {
    if (serializeEnvelope(envelope) !== JSON.stringify(envelope)) throw new Error(`${name}: bytes differ`);
    const rates = await measure(
      [
        {
          id: 'serializeEnvelope',
          call: () => serializeEnvelope(envelope),
          isAsync: false,
          batch: CALLS_PER_SAMPLE,
        },
        {
          id: 'JSON.stringify',
          call: () => JSON.stringify(envelope),
          isAsync: false,
          batch: CALLS_PER_SAMPLE,
        },
      ],
      { rounds: 5, timeMs: 400, warmupMs: 100 },
    );
    const fieldByField = rates.get('serializeEnvelope') ?? 0;
    const plain = rates.get('JSON.stringify') ?? 0;
    const savedUs = 1e6 / plain - 1e6 / fieldByField;
    rows.push([
      name,
      `${(1e6 / fieldByField).toFixed(2)} µs`,
      `${(1e6 / plain).toFixed(2)} µs`,
      `${(fieldByField / plain).toFixed(2)}×`,
      `${savedUs.toFixed(2)} µs`,
    ]);
    console.log(name, rows.at(-1)?.join('  '));
  }
  writeBenchSection(
    'envelope',
    `## Envelope serialisation

${describeMachine()}. \`pnpm --filter @svc/bench run envelope\`. Time per call (median of 5 interleaved rounds of
${CALLS_PER_SAMPLE.toLocaleString('en-US')}-call samples); both columns produce the same bytes.

${markdownTable(['envelope', 'serializeEnvelope (field by field)', 'JSON.stringify', 'speed ratio', 'saved per attempt'], rows)}

An attempt costs the in-memory engine about 50–80 µs of main-thread CPU on this kind of machine (see the delivery
section), so the saving above is what it is worth per delivery.`,
  );
}

await main();
