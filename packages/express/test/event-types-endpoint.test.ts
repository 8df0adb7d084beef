import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, createHarness, type Harness, invoicePaidOnlyCatalogue, TOKENS } from './router-harness';

let h: Harness = createHarness();
checkResponsesAgainstDocument(() => h);

describe('GET /event-types', () => {
  it('lists the built-in catalogue in its order, with descriptions and entity types', async () => {
    h = createHarness();
    const res = await request(h.app).get(`${BASE}/event-types`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(200);
    const types = res.body.eventTypes as {
      eventType: string;
      description: string | null;
      entityType: string | null;
    }[];
    expect(types.map((type) => type.eventType)).toEqual([...h.service.events.types]);
    expect(types).toContainEqual({
      eventType: 'job_created',
      description: 'A maintenance job was created.',
      entityType: 'job',
    });
    expect(types.map((type) => type.eventType)).not.toContain('webhook_test');
  });

  it("lists a host's own event types, null where the definition has no description", async () => {
    h = createHarness({
      service: {
        events: invoicePaidOnlyCatalogue(),
      },
    });
    const res = await request(h.app).get(`${BASE}/event-types`).set('authorization', TOKENS.owner);
    expect(res.body).toEqual({
      eventTypes: [{ eventType: 'invoice_paid', description: null, entityType: 'invoice' }],
    });
  });

  it('answers only an authenticated owner or admin, like every endpoint', async () => {
    h = createHarness();
    expect((await request(h.app).get(`${BASE}/event-types`)).status).toBe(401);
    expect((await request(h.app).get(`${BASE}/event-types`).set('authorization', TOKENS.agent)).status).toBe(
      403,
    );
    expect((await request(h.app).post(`${BASE}/event-types`).set('authorization', TOKENS.owner)).status).toBe(
      405,
    );
  });
});
