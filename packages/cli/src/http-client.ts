import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { InvalidOptionError } from '@svc/webhooks-core';
import { PACKAGE_NAME, RequestFailedError } from './exit-codes';
import { CLI_VERSION } from './version';

/*
 * A small client on node:http(s) rather than fetch: it takes a CA for a receiver's self-signed
 * certificate (`--ca`) without another dependency, opens one connection per request (no keep-alive
 * socket holds the process open), never follows a redirect (the service does not either), and reads a
 * bounded part of the answer.
 */

/** How much of an answer is read; the rest is dropped, as the service does with receivers' answers. */
const MAX_BODY_BYTES = 64 * 1024;

/** One request. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers?: Record<string, string>;
  body?: string;
  /** PEM certificates to trust besides the system's, for a local HTTPS receiver. */
  ca?: string;
  timeoutMs: number;
}

/** What came back. */
export interface HttpResponse {
  status: number;
  statusText: string;
  /** The body as text, at most {@link MAX_BODY_BYTES}. */
  body: string;
  /** Whether the body was longer and cut. */
  truncated: boolean;
}

/** `User-Agent` of every request, so a receiver's logs show where a delivery came from. */
export const USER_AGENT = `svc-webhooks-cli/${CLI_VERSION}`;

/** Parses a URL option; only http and https (a developer's own receiver may well be plain http). */
export function parseHttpUrl(text: string, option: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidOptionError(PACKAGE_NAME, option, `--${option} is not a URL: ${JSON.stringify(text)}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidOptionError(PACKAGE_NAME, option, `--${option} must be an http:// or https:// URL.`);
  }
  return url;
}

/**
 * Sends one request and resolves with the answer, whatever its status.
 *
 * @throws {@link RequestFailedError} when no answer comes: refused, unresolvable, TLS, timeout
 */
export function sendHttpRequest(input: HttpRequest): Promise<HttpResponse> {
  const send = input.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(input.url, {
      method: input.method,
      headers: { 'user-agent': USER_AGENT, ...input.headers },
      agent: false,
      ...(input.ca === undefined ? {} : { ca: input.ca }),
    });
    const timer = setTimeout(() => req.destroy(new TimeoutError(input.timeoutMs)), input.timeoutMs);
    req.on('response', (res) => {
      readBounded(res).then(
        (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(describeFailure(error, input.url));
        },
      );
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(describeFailure(error, input.url));
    });
    req.end(input.body);
  });
}

async function readBounded(res: IncomingMessage): Promise<HttpResponse> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of res) {
    const buffer = chunk as Buffer;
    chunks.push(buffer.subarray(0, MAX_BODY_BYTES - size));
    size += buffer.length;
    if (size >= MAX_BODY_BYTES) {
      truncated = size > MAX_BODY_BYTES;
      res.destroy();
      break;
    }
  }
  return {
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? '',
    body: Buffer.concat(chunks).toString('utf8'),
    truncated,
  };
}

class TimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

const TLS_TRUST_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Turns Node's network errors into one message that says what to check. */
function describeFailure(error: unknown, url: URL): RequestFailedError {
  const where = `${url.protocol}//${url.host}`;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  let reason: string;
  if (error instanceof TimeoutError)
    reason = `${where} sent no answer within ${error.timeoutMs} ms (--timeout).`;
  else if (code === 'ECONNREFUSED')
    reason = `nothing accepts connections at ${where}: is the server running?`;
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    reason = `the host name of ${where} does not resolve.`;
  else if (TLS_TRUST_CODES.has(code)) {
    reason = `${where} presented a certificate this machine does not trust (${code}). For a local receiver with its own certificate, pass --ca <file.pem> (or set NODE_EXTRA_CA_CERTS).`;
  } else reason = `the request to ${where} failed: ${(error as Error).message}`;
  return new RequestFailedError(reason, { cause: error });
}
