/**
 * Name of the header that carries the signature, lower-cased as Node and `Headers` present it.
 * The service sends it as `X-Service-Signature`; header names are case-insensitive.
 */
export const SIGNATURE_HEADER = 'x-service-signature';

/**
 * Default replay window: 5 minutes, as the spec recommends. It applies to timestamps in the past
 * and in the future alike.
 */
export const DEFAULT_TOLERANCE_MS = 300_000;
