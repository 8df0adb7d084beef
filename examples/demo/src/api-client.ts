/** One answer of the host's HTTP API. */
export interface ApiAnswer {
  status: number;
  // The demo reads fields it then checks; an untyped body keeps those reads short.
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field by the demo
  body: any;
  headers: Headers;
}

/** Calls the host as any HTTP client would: the token in `authorization`, JSON in and out. */
export type ApiCall = (
  method: string,
  path: string,
  options?: { token?: string; body?: unknown },
) => Promise<ApiAnswer>;

/** A small fetch-based client of the host at `baseUrl`. */
export function createApiClient(baseUrl: string, defaultToken: string): ApiCall {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? defaultToken}` };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(new URL(path, baseUrl), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? null : JSON.parse(text),
      headers: response.headers,
    };
  };
}

/** Polls `read` until `done` holds for its result, or fails after `timeoutMs`. */
export async function waitUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
