import type {
  AttemptList,
  DeliveryDetail,
  DeliveryList,
  DeliveryStatus,
  EndpointHealth,
  EventTypeList,
  PutConfigBody,
  Recovery,
  RecoveryList,
  ReplayResult,
  RotatedSecret,
  RotatedSigningKey,
  TestResult,
  WebhookConfig,
} from '@svc/webhooks-core';

/**
 * Sent with every request, bodyless ones included. A router that signs agents in by cookie (its
 * `readToken`) takes a change only with proof it comes from the host's own pages: `x-webhooks-client`
 * is that proof (a cross-site form cannot send a custom header, nor a JSON content type, and a
 * cross-origin `fetch` needs a CORS preflight for either). Harmless with a bearer token.
 */
const COOKIE_MODE_HEADERS: Readonly<Record<string, string>> = {
  accept: 'application/json',
  'content-type': 'application/json',
  'x-webhooks-client': 'portal',
};

/** How the portal reaches the management API. */
export interface PortalApiOptions {
  /** Where the management API is mounted, such as `/v1/agency/webhooks` or an absolute URL. */
  apiBase: string;
  /** Sent as `authorization: Bearer <token>`; null to rely on the host's cookies alone. */
  token: string | null;
  /** Whether the browser sends cookies: `same-origin` unless the API is on another origin. */
  credentials: RequestCredentials;
  /**
   * Told of every 401 before it is thrown: the token expired or none was sent (a reload without one), so
   * the host should sign the agent in again.
   */
  onUnauthorized?: (error: PortalApiError) => void;
}

/** An answer of the API that is not a 2xx: its error code and message, as the API wrote them. */
export class PortalApiError extends Error {
  override readonly name = 'PortalApiError';
  constructor(
    /** HTTP status; 0 when no answer came (network error, CORS refusal). */
    readonly status: number,
    /** The API's stable error code (`invalid_webhook_url`, `recovery_in_progress`, …) or `network_error`. */
    readonly code: string,
    message: string,
    readonly details: unknown = undefined,
  ) {
    super(message);
  }
}

/** What to tell the agent about a failed call: the API's own message, else the error's text. */
export function errorMessage(error: unknown): string {
  return error instanceof PortalApiError ? error.message : String(error);
}

/** Filters of the delivery log; empty strings mean "any". */
export interface DeliveryFilters {
  status?: DeliveryStatus | '';
  eventType?: string;
  /** Only deliveries about this entity (exact match). */
  entityId?: string;
  /** Epoch ms, inclusive. */
  since?: number | null;
  /** Epoch ms, exclusive. */
  until?: number | null;
  limit?: number;
  cursor?: string | null;
}

/** One event type of `GET /event-types/schemas`. */
export interface EventTypeSchema {
  eventType: string;
  description: string | null;
  entityType: string | null;
  /** JSON Schema (2020-12) of the delivery body. */
  schema: JsonSchemaNode;
  /** An example delivery body; null when the catalogue has none. */
  example: Record<string, unknown> | null;
}

/** A JSON Schema object, read loosely: the portal shows what it understands of it. */
export type JsonSchemaNode = { [keyword: string]: unknown };

/** Answer of `GET /event-types/schemas`. */
export interface EventTypeSchemaList {
  eventTypes: EventTypeSchema[];
}

/** Body of a bulk recovery: a creation window and optional event types. */
export interface RecoveryRequest {
  since: number;
  until?: number;
  eventTypes?: string[];
}

/** A page of the recovery history: `limit` 1 to 100 (the API's default is 20), `cursor` from the previous page. */
export interface RecoveryListQuery {
  limit?: number;
  cursor?: string | null;
}

/** The API's lists take 1 to 100 rows a page. */
const MAX_PAGE_LIMIT = 100;

/**
 * A page size the API accepts: a whole number from 1 to 100; `fallback` for one that is
 * not a number or rounds to 0 (a page-size attribute set to nonsense).
 */
export function pageLimit(size: number, fallback: number): number {
  return Math.min(MAX_PAGE_LIMIT, Math.max(1, Math.trunc(size) || fallback));
}

/** The management API calls the portal makes; every method throws {@link PortalApiError} on a non-2xx. */
export class PortalApi {
  constructor(private readonly options: PortalApiOptions) {}

  /** The configuration, or null when the agency has none yet. */
  async getConfig(): Promise<WebhookConfig | null> {
    try {
      return await this.request<WebhookConfig>('GET', '/config');
    } catch (error) {
      if (error instanceof PortalApiError && error.code === 'config_not_found') return null;
      throw error;
    }
  }

  /**
   * Creates (the answer carries the full secret, shown once, and its `whsec_` form when the scheme includes
   * Standard Webhooks) or updates (secret masked) the configuration.
   */
  putConfig(body: PutConfigBody): Promise<WebhookConfig> {
    return this.request('PUT', '/config', body);
  }

  rotateSecret(): Promise<RotatedSecret> {
    return this.request('POST', '/config/rotate-secret');
  }

  /**
   * A new active Ed25519 signing key; the old one keeps signing (as a retiring key) for `overlapMs`
   * (0: stops at once; omitted: the service's default). Answers every key still published.
   */
  rotateSigningKey(overlapMs?: number): Promise<RotatedSigningKey> {
    return this.request(
      'POST',
      '/config/rotate-signing-key',
      overlapMs === undefined ? undefined : { overlapMs },
    );
  }

  /**
   * The absolute URL of the agency's public keys as a JWKS, which receivers fetch without a token: the
   * router's `GET /public-keys/:agencyId`, beside this API.
   */
  publicKeysUrl(agencyId: string): string {
    const path = `${this.base}/public-keys/${encodeURIComponent(agencyId)}`;
    return new URL(path, document.baseURI).href;
  }

  /** Sends a test event now; `eventType` picks a subscribed type's example instead of `webhook_test`. */
  sendTest(eventType?: string): Promise<TestResult> {
    return this.request('POST', '/config/test', eventType ? { eventType } : undefined);
  }

  getHealth(): Promise<EndpointHealth> {
    return this.request('GET', '/config/health');
  }

  listEventTypes(): Promise<EventTypeList> {
    return this.request('GET', '/event-types');
  }

  /** The catalogue with each type's JSON Schema and example body (`GET /event-types/schemas`). */
  listEventTypeSchemas(): Promise<EventTypeSchemaList> {
    return this.request('GET', '/event-types/schemas');
  }

  listDeliveries(filters: DeliveryFilters = {}): Promise<DeliveryList> {
    const query = new URLSearchParams();
    if (filters.status) query.set('status', filters.status);
    if (filters.eventType) query.set('eventType', filters.eventType);
    if (filters.entityId) query.set('entityId', filters.entityId);
    if (filters.since !== undefined && filters.since !== null) query.set('since', String(filters.since));
    if (filters.until !== undefined && filters.until !== null) query.set('until', String(filters.until));
    if (filters.limit !== undefined) query.set('limit', String(filters.limit));
    if (filters.cursor) query.set('cursor', filters.cursor);
    const search = query.toString();
    return this.request('GET', search === '' ? '/deliveries' : `/deliveries?${search}`);
  }

  getDelivery(id: string): Promise<DeliveryDetail> {
    return this.request('GET', `/deliveries/${encodeURIComponent(id)}`);
  }

  listAttempts(id: string): Promise<AttemptList> {
    return this.request('GET', `/deliveries/${encodeURIComponent(id)}/attempts`);
  }

  replay(id: string): Promise<ReplayResult> {
    return this.request('POST', `/deliveries/${encodeURIComponent(id)}/replay`);
  }

  /** How many deliveries a recovery of this window would replay; nothing is replayed. */
  async countRecoverable(request: RecoveryRequest): Promise<number> {
    const answer = await this.request<{ matched: number }>('POST', '/deliveries/recover', {
      ...request,
      dryRun: true,
    });
    return answer.matched;
  }

  startRecovery(request: RecoveryRequest): Promise<{ recoveryId: string; matched: number }> {
    return this.request('POST', '/deliveries/recover', request);
  }

  getRecovery(id: string): Promise<Recovery> {
    return this.request('GET', `/recoveries/${encodeURIComponent(id)}`);
  }

  /** The agency's recoveries of every status, newest first; pass `nextCursor` back as `cursor` for the next page. */
  listRecoveries(query: RecoveryListQuery = {}): Promise<RecoveryList> {
    const search = new URLSearchParams();
    if (query.limit !== undefined) search.set('limit', String(query.limit));
    if (query.cursor) search.set('cursor', query.cursor);
    const encoded = search.toString();
    return this.request('GET', encoded === '' ? '/recoveries' : `/recoveries?${encoded}`);
  }

  cancelRecovery(id: string): Promise<Recovery> {
    return this.request('POST', `/recoveries/${encodeURIComponent(id)}/cancel`);
  }

  /** The API base without a trailing slash. */
  private get base(): string {
    return this.options.apiBase.replace(/\/+$/, '');
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { ...COOKIE_MODE_HEADERS };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers,
        credentials: this.options.credentials,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new PortalApiError(
        0,
        'network_error',
        'The webhook service could not be reached. Check your connection and try again.',
      );
    }
    const text = await response.text();
    const parsed = parseJson(text);
    if (response.ok) return parsed as T;
    const error = (parsed as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)
      ?.error;
    const failure = new PortalApiError(
      response.status,
      typeof error?.code === 'string' ? error.code : 'http_error',
      typeof error?.message === 'string' ? error.message : `The webhook service answered ${response.status}.`,
      error?.details,
    );
    if (response.status === 401) this.options.onUnauthorized?.(failure);
    throw failure;
  }
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
