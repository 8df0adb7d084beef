import { describe, expect, it } from 'vitest';
import { backendKindFrom } from '../src/backend';
import { createStaticAuthenticate, DEFAULT_DEMO_TOKENS, parseStaticTokens } from '../src/static-tokens';

describe('parseStaticTokens', () => {
  it('reads token:agencyId:role and an optional inactive flag', () => {
    expect(parseStaticTokens(' tok_a:agency-1:owner , tok_b:agency-2:agent:inactive ')).toEqual([
      {
        token: 'tok_a',
        agent: { agentId: 'agent_tok_a', agencyId: 'agency-1', role: 'owner', agencyActive: true },
      },
      {
        token: 'tok_b',
        agent: { agentId: 'agent_tok_b', agencyId: 'agency-2', role: 'agent', agencyActive: false },
      },
    ]);
  });

  it('parses the default tokens: every role and an inactive agency', () => {
    const tokens = parseStaticTokens(DEFAULT_DEMO_TOKENS);
    expect(new Set(tokens.map(({ agent }) => agent.role))).toEqual(new Set(['owner', 'admin', 'agent']));
    expect(tokens.some(({ agent }) => !agent.agencyActive)).toBe(true);
  });

  it.each([
    'tok_a:agency-1',
    'tok_a:agency-1:root',
    ':agency-1:owner',
    'tok_a::owner',
    'tok_a:agency-1:owner:paused',
    'a:b:owner:inactive:x',
  ])('refuses the malformed entry %j', (entry) => {
    expect(() => parseStaticTokens(entry)).toThrow(/Malformed demo token/);
  });
});

describe('createStaticAuthenticate', () => {
  it('answers the agent of a known token and null for any other', async () => {
    const authenticate = createStaticAuthenticate(parseStaticTokens('tok_a:agency-1:admin'));
    const req = {} as Parameters<typeof authenticate>[1];
    expect(await authenticate('tok_a', req)).toMatchObject({ agencyId: 'agency-1', role: 'admin' });
    expect(await authenticate('tok_b', req)).toBeNull();
  });
});

describe('backendKindFrom', () => {
  it.each([
    [{}, 'memory'],
    [{ DATABASE_URL: 'postgres://x' }, 'pg'],
    [{ REDIS_URL: 'redis://x' }, 'redis'],
    [{ DATABASE_URL: 'postgres://x', REDIS_URL: 'redis://x' }, 'pg'],
    [{ DATABASE_URL: 'postgres://x', WEBHOOKS_STORE: 'memory' }, 'memory'],
    [{ REDIS_URL: 'redis://x', WEBHOOKS_STORE: 'redis' }, 'redis'],
  ] as const)('%j → %s', (env, kind) => {
    expect(backendKindFrom(env)).toBe(kind);
  });

  it('refuses an unknown WEBHOOKS_STORE', () => {
    expect(() => backendKindFrom({ WEBHOOKS_STORE: 'mongo' })).toThrow(/memory, pg or redis/);
  });
});
