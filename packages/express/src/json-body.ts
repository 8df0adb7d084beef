import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { WebhookApiError } from './errors';

/**
 * Middleware for routes that take a JSON body: refuses other media types with
 * 415, parses with a size limit, and turns body-parser's errors into API errors.
 * The router parses its own bodies so that the host needs no `express.json()`
 * and every parsing failure is answered in the API's JSON error format.
 *
 * @param limit - largest accepted body, in bytes or as a string such as `'100kb'`
 */
export function createJsonBodyMiddleware(limit: string | number): RequestHandler[] {
  // strict: only objects and arrays; a bare string or number is not a request body here.
  const parse = express.json({ limit, strict: true, type: 'application/json' });
  const requireJson: RequestHandler = (req: Request, _res: Response, next: NextFunction) => {
    if (req.is('application/json') !== 'application/json') {
      throw new WebhookApiError(
        'unsupported_media_type',
        'This endpoint takes a JSON body: send it with Content-Type: application/json.',
        { details: { contentType: req.headers['content-type'] ?? null } },
      );
    }
    next();
  };
  const parseJson: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    parse(req, res, (error?: unknown) => next(error === undefined ? undefined : toBodyError(error)));
  };
  return [requireJson, parseJson];
}

/** body-parser's error `type`s, as API errors. */
function toBodyError(error: unknown): unknown {
  const { type, limit } = error as { type?: unknown; limit?: unknown };
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
    case 'entity.parse.failed':
      return new WebhookApiError(
        'invalid_json',
        'The request body is not valid JSON (an object is expected).',
        {
          cause: error,
        },
      );
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new WebhookApiError(
        'unsupported_media_type',
        'The request body must be UTF-8 JSON, optionally gzip, deflate or br encoded.',
        { cause: error },
      );
    case 'request.aborted':
    case 'request.size.invalid':
      return new WebhookApiError('invalid_request', 'The request body could not be read completely.', {
        cause: error,
      });
    default:
      return error;
  }
}
