import type { AgentRole, Authenticate, AuthenticatedAgent } from '@svc/webhooks-express';

/**
 * Demo tokens used when `DEMO_TOKENS` is not set: two agencies, every role, and
 * an inactive agency, so each authorization rule can be tried with curl.
 */
export const DEFAULT_DEMO_TOKENS =
  'tok_owner:agency-1:owner,tok_admin:agency-1:admin,tok_agent:agency-1:agent,' +
  'tok_other:agency-2:owner,tok_inactive:agency-3:owner:inactive';

/** One static token and the agent it stands for. */
export interface StaticToken {
  token: string;
  agent: AuthenticatedAgent;
}

const ROLES: readonly AgentRole[] = ['owner', 'admin', 'agent'];

/**
 * Parses `token:agencyId:role[:inactive]` entries separated by commas, such as
 * `tok_owner:agency-1:owner,tok_agent:agency-1:agent`. The agent id is derived
 * from the token; `inactive` marks the agency as not active.
 *
 * @throws Error naming the entry that is malformed
 */
export function parseStaticTokens(spec: string): StaticToken[] {
  return spec
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map(parseEntry);
}

function parseEntry(entry: string): StaticToken {
  const [token, agencyId, role, flag, ...rest] = entry.split(':');
  const validFlag = flag === undefined || flag === 'inactive';
  if (!token || !agencyId || !isRole(role) || !validFlag || rest.length > 0) {
    throw new Error(
      `Malformed demo token "${entry}": expected token:agencyId:role[:inactive] with role owner, admin or agent.`,
    );
  }
  return { token, agent: { agentId: `agent_${token}`, agencyId, role, agencyActive: flag !== 'inactive' } };
}

function isRole(value: string | undefined): value is AgentRole {
  return ROLES.includes(value as AgentRole);
}

/**
 * An `authenticate` for demos and local development: a fixed token table.
 * A real host looks the token up in its session or API-key store instead.
 */
export function createStaticAuthenticate(tokens: readonly StaticToken[]): Authenticate {
  const byToken = new Map(tokens.map(({ token, agent }) => [token, agent]));
  return async (token) => byToken.get(token) ?? null;
}
