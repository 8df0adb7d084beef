import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { listen } from './raw-request';
import { BASE, createHarness, PUBLIC_URL, TOKENS } from './router-harness';

/** A host that signs agents in with a `session` cookie holding their token. */
const readSessionCookie = (req: { headers: { cookie?: string } }) =>
  /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1] ?? null;

describe('readToken: a host signs agents in by cookie', () => {
  it('authenticates the token its readToken finds, with the same role and agency rules', async () => {
    const h = createHarness({ router: { readToken: readSessionCookie } });
    const created = await request(h.app)
      .put(`${BASE}/config`)
      .set('cookie', `theme=dark; session=${TOKENS.owner}`)
      .set('x-webhooks-client', 'test')
      .send({ webhookUrl: PUBLIC_URL, enabled: true, subscribedEventTypes: ['job_created'] });
    expect(created.status).toBe(201);
    expect((await request(h.app).get(`${BASE}/config`).set('cookie', `session=${TOKENS.agent}`)).status).toBe(
      403,
    );
    const other = await request(h.app).get(`${BASE}/config`).set('cookie', `session=${TOKENS.otherOwner}`);
    expect(other.body.error.code).toBe('config_not_found');
  });

  it('401 with a sign-in message when the cookie is missing; the authorization header is then not read', async () => {
    const h = createHarness({ router: { readToken: readSessionCookie } });
    const res = await request(h.app).get(`${BASE}/config`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/sign in/i),
    });
  });

  it('still refuses a request with two authorization headers', async () => {
    const server = await listen(createHarness({ router: { readToken: readSessionCookie } }).app);
    try {
      const res = await server.send({
        method: 'GET',
        path: `${BASE}/config`,
        headers: { cookie: `session=${TOKENS.owner}`, authorization: [TOKENS.owner, TOKENS.otherOwner] },
      });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ error: { code: 'invalid_request' } });
    } finally {
      await server.close();
    }
  });
});
