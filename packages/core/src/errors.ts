/**
 * Typed errors of `@svc/webhooks-core`. Every error the library throws on purpose
 * is a {@link WebhookError} with a stable, snake_case `code`; the HTTP status is
 * mapped from that code in one table by `@svc/webhooks-express`, never stored here.
 */

/** Stable machine-readable error codes. Renaming one is a breaking change. */
export type WebhookErrorCode =
  | 'validation_failed'
  | 'invalid_webhook_url'
  | 'unknown_event_type'
  | 'invalid_event_definition'
  | 'invalid_metadata'
  | 'payload_too_large'
  | 'config_not_found'
  | 'delivery_not_found'
  | 'delivery_not_replayable'
  | 'recovery_not_found'
  | 'recovery_in_progress'
  | 'recovery_not_running'
  | 'schema_not_migrated'
  | 'transactions_unsupported'
  | 'invalid_option'
  | 'transport_closed'
  | 'rate_limited'
  | 'store_error'
  | 'store_unavailable'
  | 'secret_key_unavailable'
  | 'secret_undecryptable';

/** Base class of every error thrown on purpose by the webhooks packages. */
export class WebhookError extends Error {
  /** Stable code; switch on this, never on `message`. */
  readonly code: WebhookErrorCode | (string & {});
  /** Structured data the caller can act on (field issues, reason, ids). */
  readonly details?: unknown;

  constructor(
    code: WebhookErrorCode | (string & {}),
    message: string,
    options?: { cause?: unknown; details?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    if (options?.details !== undefined) this.details = options.details;
  }
}

/** One problem found in an input, addressed by its path (`subscribedEventTypes.2`). */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Input (a request body, a query, emitted event data) does not match its schema. */
export class WebhookValidationError extends WebhookError {
  declare readonly details: { issues: ValidationIssue[] };
  constructor(message: string, issues: ValidationIssue[], code: WebhookErrorCode = 'validation_failed') {
    super(code, message, { details: { issues } });
  }
}

/**
 * An emitted event whose serialised metadata exceeds the service's `maxPayloadBytes`. Nothing was
 * stored; receivers would otherwise get the whole payload on every attempt.
 */
export class PayloadTooLargeError extends WebhookError {
  declare readonly details: { bytes: number; maxBytes: number };
  constructor(eventType: string, bytes: number, maxBytes: number) {
    super(
      'payload_too_large',
      `The ${eventType} event's metadata is ${bytes} bytes as JSON, over the limit of ${maxBytes} (maxPayloadBytes); send an id and let receivers fetch the rest.`,
      { details: { bytes, maxBytes } },
    );
  }
}

/** Why a webhook URL was refused by the URL policy. */
export type InvalidUrlReason = 'invalid_url' | 'not_https' | 'unresolvable_host' | 'private_address';

/** The webhook URL breaks the URL policy (https only, resolvable, public addresses only). */
export class InvalidWebhookUrlError extends WebhookError {
  declare readonly details: { reason: InvalidUrlReason };
  readonly reason: InvalidUrlReason;
  constructor(reason: InvalidUrlReason, message: string, options?: { cause?: unknown }) {
    super('invalid_webhook_url', message, { cause: options?.cause, details: { reason } });
    this.reason = reason;
  }
}

/** `emit` or a subscription named an event type the catalogue does not know. */
export class UnknownEventTypeError extends WebhookError {
  readonly eventType: string;
  constructor(eventType: string) {
    super(
      'unknown_event_type',
      `Unknown event type "${eventType}". Register it with defineEvent() before emitting or subscribing to it.`,
      { details: { eventType } },
    );
    this.eventType = eventType;
  }
}

/** The agency has no webhook configuration yet. */
export class ConfigNotFoundError extends WebhookError {
  constructor(agencyId: string) {
    super(
      'config_not_found',
      'This agency has no webhook configuration. Create one with PUT /config first.',
      {
        details: { agencyId },
      },
    );
  }
}

/** No delivery with that id belongs to the agency (another agency's id answers the same). */
export class DeliveryNotFoundError extends WebhookError {
  constructor(deliveryId: string) {
    super('delivery_not_found', `Delivery "${deliveryId}" was not found.`, { details: { deliveryId } });
  }
}

/** Replay was asked for a delivery that is not `failed`. */
export class DeliveryNotReplayableError extends WebhookError {
  constructor(deliveryId: string, status: string) {
    super(
      'delivery_not_replayable',
      `Delivery "${deliveryId}" is ${status}; only a failed delivery can be replayed.`,
      { details: { deliveryId, status } },
    );
  }
}

/** No recovery with that id belongs to the agency (another agency's id answers the same). */
export class RecoveryNotFoundError extends WebhookError {
  constructor(recoveryId: string) {
    super('recovery_not_found', `Recovery "${recoveryId}" was not found.`, { details: { recoveryId } });
  }
}

/** The agency has a running recovery already; one runs at a time per agency. Nothing was started. */
export class RecoveryInProgressError extends WebhookError {
  declare readonly details: { recoveryId: string };

  constructor(recoveryId: string) {
    super(
      'recovery_in_progress',
      `Recovery "${recoveryId}" is still running; wait for it to complete or cancel it before starting another.`,
      { details: { recoveryId } },
    );
  }
}

/** Cancel was asked of a recovery that has completed already. */
export class RecoveryNotRunningError extends WebhookError {
  constructor(recoveryId: string, status: string) {
    super(
      'recovery_not_running',
      `Recovery "${recoveryId}" is ${status}; only a running recovery can be cancelled.`,
      { details: { recoveryId, status } },
    );
  }
}

/** The database schema is older than this version of an adapter expects. */
export class SchemaNotMigratedError extends WebhookError {
  constructor(message: string) {
    super('schema_not_migrated', message);
  }
}

/**
 * A factory or call was given an option it cannot work with (a negative
 * concurrency, an unknown service object, a conflicting setting). Thrown where
 * the host wires the library together, never from a request handler, so the
 * message starts with the package that refused and names the option.
 */
export class InvalidOptionError extends WebhookError {
  declare readonly details: { option: string };
  /** The option (dotted path for nested ones, e.g. `recoverySweep.graceMs`). */
  readonly option: string;
  constructor(packageName: string, option: string, message: string) {
    super('invalid_option', `${packageName}: ${message}`, { details: { option } });
    this.option = option;
  }
}

/**
 * Too many requests of one kind for one agency: test sends (`testSendLimit`), or bulk
 * recovery dry runs and starts (`recoveryLimit`). Nothing was sent, counted or started,
 * and nothing changed; try again after `retryAfterMs`.
 */
export class RateLimitedError extends WebhookError {
  declare readonly details: { agencyId: string; retryAfterMs: number };

  constructor(agencyId: string, what: string, retryAfterMs: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    super('rate_limited', `Too many ${what} for this agency; try again in ${seconds} s.`, {
      details: { agencyId, retryAfterMs },
    });
  }

  /** Ms until the next request of this kind will be accepted. */
  get retryAfterMs(): number {
    return this.details.retryAfterMs;
  }
}

/**
 * The store or queue could not be reached for a moment (a Redis failover, a
 * connection being re-established): a retriable condition, not a bug. The call
 * may or may not have taken effect, so retry it as it was: an `emit` retried with
 * the same `eventId` stores its deliveries once. The adapter's own error is the
 * `cause`; it never reaches an API client (its message may name servers).
 */
export class StoreUnavailableError extends WebhookError {
  declare readonly details: { retryAfterMs: number };
  /** Always true: the same call, repeated after `retryAfterMs`, is expected to succeed. */
  readonly retriable = true;

  constructor(what: string, retryAfterMs: number, options: { cause: unknown }) {
    super(
      'store_unavailable',
      `${what} is unavailable for a moment (the call may or may not have taken effect); ` +
        'retry it unchanged. An emit retried with the same eventId stores its deliveries once.',
      { cause: options.cause, details: { retryAfterMs } },
    );
  }

  /** Ms after which a retry is expected to succeed. */
  get retryAfterMs(): number {
    return this.details.retryAfterMs;
  }
}

/**
 * A stored signing secret (or `v1a` private key) is sealed under a key id this service was not given
 * (`secretEncryption.keys` lacks it, or the service has no `secretEncryption`
 * at all). Nothing was signed or changed. Neither the secret nor the stored
 * value is in the message or the details.
 */
export class SecretKeyUnavailableError extends WebhookError {
  declare readonly details: { agencyId: string; keyId: string };
  /** The key id the stored secret names: give the service that key. */
  readonly keyId: string;
  readonly agencyId: string;

  constructor(keyId: string, agencyId: string, encryptionConfigured: boolean) {
    const missing = encryptionConfigured
      ? `key "${keyId}" is not among secretEncryption.keys`
      : 'this service has no secretEncryption option';
    super(
      'secret_key_unavailable',
      `The signing secret (or a v1a signing key) of agency "${agencyId}" is sealed under key "${keyId}", but ${missing}. ` +
        `Add key "${keyId}" to secretEncryption.keys (it need not be the primary) in every process; ` +
        'drop a key only after reencryptSecrets() has moved every secret off it.',
      { details: { agencyId, keyId } },
    );
    this.keyId = keyId;
    this.agencyId = agencyId;
  }
}

/**
 * A stored signing secret (or `v1a` private key) names a configured key but does not decrypt and
 * authenticate under it: the key's bytes differ from the ones that sealed it,
 * or the stored value was altered, truncated or copied from another agency's
 * configuration. Nothing was signed or changed. Neither the secret nor the
 * stored value is in the message or the details.
 */
export class SecretUndecryptableError extends WebhookError {
  declare readonly details: { agencyId: string; keyId: string | null };
  /** The key id the stored value names; null when the value is not in a format this version reads. */
  readonly keyId: string | null;
  readonly agencyId: string;

  constructor(keyId: string | null, agencyId: string) {
    const under =
      keyId === null
        ? 'is not a sealed value this version reads (`enc:v1:<keyId>:…`)'
        : `does not decrypt under key "${keyId}"`;
    super(
      'secret_undecryptable',
      `The signing secret (or a v1a signing key) of agency "${agencyId}" ${under}: the key's bytes differ from ` +
        'the ones that sealed it, or the stored value was altered or copied from another agency. Check the key ' +
        'material; if the secret is lost, rotate it (rotateSecret) and give the agency the new one; if a v1a ' +
        'key is lost, turn asymmetricSignatures off and on again (PUT /config) for a new key pair.',
      { details: { agencyId, keyId } },
    );
    this.keyId = keyId;
    this.agencyId = agencyId;
  }
}
