import { isUtf8 } from 'node:buffer';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { WebhookApiError } from './errors';

/*
 * Why the body is read as bytes and decoded here, not by `express.json()`:
 * body-parser decodes any `utf-*` charset it is told (UTF-16 included) and turns
 * invalid bytes into U+FFFD, so a configuration could be stored with text its
 * author never sent. The management API takes UTF-8 JSON only: another charset
 * is refused before the body is read (415), and bytes that are not UTF-8 are
 * refused (400), never repaired.
 */

/** Charset labels that name UTF-8 (WHATWG Encoding: `utf8` is an alias); compared lower-cased. */
const UTF8_LABELS: ReadonlySet<string> = new Set(['utf-8', 'utf8']);

/**
 * Middleware for routes that take a JSON body: refuses other media types and
 * charsets with 415, reads the body with a size limit (gzip, deflate and br are
 * inflated first; the limit counts inflated bytes), refuses bytes that are not
 * UTF-8, and parses it as a JSON object or array. Every failure is an API error,
 * answered in the API's JSON error format.
 *
 * @param limit - largest accepted body, in bytes or as a string such as `'100kb'`
 */
export function createJsonBodyMiddleware(limit: string | number): RequestHandler[] {
  // The media type was checked just before; the raw parser only reads and inflates.
  const read = express.raw({ limit, type: () => true });
  const requireJson: RequestHandler = (req: Request, _res: Response, next: NextFunction) => {
    const contentType = req.headers['content-type'] ?? null;
    if (req.is('application/json') !== 'application/json') {
      throw new WebhookApiError(
        'unsupported_media_type',
        'This endpoint takes a JSON body: send it with Content-Type: application/json.',
        { details: { contentType } },
      );
    }
    const charset = foreignCharset(contentType ?? '');
    if (charset !== null) {
      throw new WebhookApiError(
        'unsupported_media_type',
        `The request body must be UTF-8 JSON; charset "${charset.slice(0, 40)}" is not accepted. Send it as UTF-8, or leave the charset out.`,
        { details: { contentType } },
      );
    }
    next();
  };
  const parseJson: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    read(req, res, (error?: unknown) => {
      if (error !== undefined) {
        next(toBodyError(error));
        return;
      }
      try {
        req.body = decodeJsonBody(req.body);
      } catch (refusal) {
        next(refusal);
        return;
      }
      next();
    });
  };
  return [requireJson, parseJson];
}

/**
 * The first `charset` parameter of a Content-Type value that does not name
 * UTF-8, lower-cased and unquoted; null when every one does, or there is none.
 * Every `charset` parameter is read, so a second one cannot slip another
 * encoding past the first, and a quoted value with a `;` inside reads as no
 * UTF-8 label at all: refused, never guessed at.
 */
function foreignCharset(contentType: string): string | null {
  for (const parameter of contentType.split(';').slice(1)) {
    const [name = '', ...rest] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    const value = rest
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (!UTF8_LABELS.has(value)) return value;
  }
  return null;
}

/** A UTF-8 byte order mark, which JSON allows a parser to ignore. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The JSON value of the body bytes: an object or an array (a bare string or
 * number is not a request body here). An empty body is `{}`, so that a PUT
 * without fields is told which fields are missing.
 */
function decodeJsonBody(body: unknown): unknown {
  if (!Buffer.isBuffer(body) || body.length === 0) return {};
  const bytes = body.subarray(0, BOM.length).equals(BOM) ? body.subarray(BOM.length) : body;
  if (!isUtf8(bytes)) {
    throw new WebhookApiError(
      'invalid_json',
      'The request body is not valid UTF-8. Send JSON encoded as UTF-8.',
    );
  }
  const text = bytes.toString('utf8');
  const first = /\S/.exec(text)?.[0];
  if (first !== '{' && first !== '[') {
    throw new WebhookApiError('invalid_json', 'The request body is not a JSON object or array.');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new WebhookApiError('invalid_json', 'The request body is not valid JSON (an object is expected).', {
      cause: error,
    });
  }
}

/**
 * body-parser's read errors, as API errors. Anything else it can report for a
 * client's bytes (a gzip body that does not inflate, a stream error) is the
 * client's too: answered 400 `invalid_request`, never a 500.
 */
function toBodyError(error: unknown): unknown {
  const { type, limit, status } = error as { type?: unknown; limit?: unknown; status?: unknown };
  switch (type) {
    case 'entity.too.large':
      return new WebhookApiError(
        'payload_too_large',
        `The request body is larger than ${String(limit)} bytes.`,
        {
          cause: error,
          details: { limitBytes: limit },
        },
      );
    case 'encoding.unsupported':
      return new WebhookApiError(
        'unsupported_media_type',
        'The request body must be UTF-8 JSON, optionally gzip, deflate or br encoded.',
        { cause: error },
      );
    default:
      if (typeof status === 'number' && status >= 400 && status < 500) {
        return new WebhookApiError('invalid_request', 'The request body could not be read completely.', {
          cause: error,
        });
      }
      return error;
  }
}
