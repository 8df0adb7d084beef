import { buildEventJsonSchema } from '@svc/webhooks-core/schemas';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, createHarness, type Harness, invoicePaidOnlyCatalogue, TOKENS } from './router-harness';

let h: Harness = createHarness();
checkResponsesAgainstDocument(() => h);

interface Listed {
  eventType: string;
  description: string | null;
  entityType: string | null;
  schema: Record<string, unknown>;
  example: Record<string, unknown> | null;
}

describe('GET /event-types/schemas', () => {
  it('lists every type of /event-types in its order, each with its JSON Schema and example', async () => {
    h = createHarness();
    const res = await request(h.app).get(`${BASE}/event-types/schemas`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(200);
    const types = res.body.eventTypes as Listed[];
    const summaries = await request(h.app).get(`${BASE}/event-types`).set('authorization', TOKENS.owner);
    expect(
      types.map(({ eventType, description, entityType }) => ({ eventType, description, entityType })),
    ).toEqual(summaries.body.eventTypes);
    const jobCreated = types.find((type) => type.eventType === 'job_created') as Listed;
    const definition = h.service.events.get('job_created');
    if (definition === undefined) throw new Error('job_created is not in the catalogue');
    expect(jobCreated.schema).toEqual(buildEventJsonSchema(definition));
    expect(jobCreated.schema.required).toContain('metadata');
    expect(jobCreated.example).toEqual((jobCreated.schema.examples as unknown[])[0]);
    expect(jobCreated.example?.eventType).toBe('job_created');
  });

  it('answers null for the example of a type the host gave none, and needs an agent token', async () => {
    h = createHarness({
      service: {
        events: invoicePaidOnlyCatalogue(),
      },
    });
    const res = await request(h.app).get(`${BASE}/event-types/schemas`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(200);
    const types = res.body.eventTypes as Listed[];
    expect(types.map((type) => type.eventType)).toEqual(['invoice_paid']);
    const invoice = types[0] as Listed;
    expect(invoice.example).toBeNull();
    expect((invoice.schema.properties as Record<string, unknown>).metadata).toBeDefined();
    expect((await request(h.app).get(`${BASE}/event-types/schemas`)).status).toBe(401);
  });
});
