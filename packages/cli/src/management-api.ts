import { ManagementApiError } from './exit-codes';
import { type HttpResponse, sendHttpRequest } from './http-client';

/** Where a host serves the management API, and the agent token to call it with. */
export interface ManagementApiOptions {
  /** The mount path's URL, e.g. `https://api.example.com/v1/agency/webhooks`. */
  api: URL;
  /** An agent token of role owner or admin; sent as `authorization: Bearer <token>`. */
  token: string;
  ca?: string;
  timeoutMs: number;
}

/** A JSON answer of the management API, with its status. */
export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Calls the management API; a JSON object comes back for any 2xx, anything else throws. */
export interface ManagementApiClient {
  /**
   * @param path - under the mount path, such as `/config/test`
   * @throws {@link ManagementApiError} for an error status or an answer that is not a JSON object
   */
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer>;
}

/** A client bound to one host and token. */
export function createManagementApiClient(options: ManagementApiOptions): ManagementApiClient {
  const base = options.api.href.replace(/\/+$/, '');
  return {
    async call(method, path, body) {
      const url = new URL(base + path);
      const response = await sendHttpRequest({
        method,
        url,
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(options.ca === undefined ? {} : { ca: options.ca }),
        timeoutMs: options.timeoutMs,
      });
      const parsed = parseObject(response.body);
      if (response.status < 200 || response.status > 299) throw apiError(method, path, response, parsed);
      if (parsed === null) {
        throw new ManagementApiError(
          `${method} ${path} answered ${response.status} without a JSON object; is --api the management API's mount path (…/v1/agency/webhooks)?`,
          { status: response.status, code: null },
        );
      }
      return { status: response.status, body: parsed };
    },
  };
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The API's `{ error: { code, message } }`, or what the answer was when it is not that shape. */
function apiError(
  method: string,
  path: string,
  response: HttpResponse,
  parsed: Record<string, unknown> | null,
): ManagementApiError {
  const error = parsed?.error as { code?: unknown; message?: unknown } | undefined;
  if (typeof error?.code === 'string') {
    const message = typeof error.message === 'string' ? `: ${error.message}` : '';
    return new ManagementApiError(`${method} ${path} answered ${response.status} ${error.code}${message}`, {
      status: response.status,
      code: error.code,
    });
  }
  const excerpt = response.body.trim().slice(0, 200);
  return new ManagementApiError(
    `${method} ${path} answered ${response.status} ${response.statusText}${excerpt ? `: ${excerpt}` : ''}`,
    { status: response.status, code: null },
  );
}
