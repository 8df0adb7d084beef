import type {
  AttemptRecord,
  CircuitRecord,
  CircuitState,
  CircuitStatus,
  DeliveryRecord,
  DeliveryUpdate,
  SignatureScheme,
  SigningKeyRecord,
  WebhookConfigRecord,
} from '@svc/webhooks-core';
import { signingKeysJson } from '@svc/webhooks-core/adapter-kit';
import { unexpectedReply } from '../errors';

/** A configuration's hash fields as the upsert script writes them. */
export function configFields(config: {
  webhookUrl: string;
  enabled: boolean;
  subscribedEventTypes: readonly string[];
}): [webhookUrl: string, enabled: string, subscribedEventTypes: string] {
  return [config.webhookUrl, config.enabled ? '1' : '0', JSON.stringify(config.subscribedEventTypes)];
}

/**
 * The upsert script's `signatureScheme` and `signingKeys` arguments; '' for a field
 * not given (the script keeps the stored value, or writes the default on create).
 */
export function signatureFields(config: {
  signatureScheme?: SignatureScheme | undefined;
  signingKeys?: readonly SigningKeyRecord[] | undefined;
}): [signatureScheme: string, signingKeys: string] {
  return [config.signatureScheme ?? '', config.signingKeys ? signingKeysJson(config.signingKeys) : ''];
}

/** Rebuilds a configuration from its HGETALL reply (flat field/value pairs). */
export function decodeConfig(pairs: readonly unknown[]): WebhookConfigRecord {
  const fields = new Map<string, string>();
  for (let index = 0; index + 1 < pairs.length; index += 2) {
    fields.set(String(pairs[index]), String(pairs[index + 1]));
  }
  const read = (name: string): string => {
    const value = fields.get(name);
    if (value === undefined) throw unexpectedReply(`config field ${name}`, pairs);
    return value;
  };
  // Configurations written before auto-disable existed carry neither field; an upsert removes both.
  const optional = (name: string): string | null => fields.get(name) || null;
  const disabledAt = optional('disabledAt');
  return {
    id: read('id'),
    agencyId: read('agencyId'),
    webhookUrl: read('webhookUrl'),
    signingSecret: read('signingSecret'),
    enabled: read('enabled') === '1',
    subscribedEventTypes: JSON.parse(read('subscribedEventTypes')) as string[],
    createdAt: Number(read('createdAt')),
    updatedAt: Number(read('updatedAt')),
    disabledAt: disabledAt === null ? null : Number(disabledAt),
    disabledReason: optional('disabledReason'),
    // Configurations written before Standard Webhooks existed carry neither field: they sent the spec's signature.
    signatureScheme: (optional('signatureScheme') ?? 'service') as SignatureScheme,
    signingKeys: JSON.parse(optional('signingKeys') ?? '[]') as SigningKeyRecord[],
  };
}

/**
 * The record stored at insert (field `r`) and the latest update (field `u`), merged.
 * Records written before the attempt history existed carry no `nextAttemptTrigger`:
 * their next attempt counts as `automatic`.
 */
export function decodeDelivery(inserted: string, update: string | null | undefined): DeliveryRecord {
  const record = JSON.parse(inserted) as DeliveryRecord;
  if (update) Object.assign(record, JSON.parse(update) as DeliveryUpdate);
  record.nextAttemptTrigger ??= 'automatic';
  return record;
}

/** Decodes the flat (r, u) pairs the list scripts return. */
export function decodeDeliveryPairs(reply: unknown, operation: string): DeliveryRecord[] {
  if (!Array.isArray(reply) || reply.length % 2 !== 0) throw unexpectedReply(operation, reply);
  const records: DeliveryRecord[] = [];
  for (let index = 0; index < reply.length; index += 2) {
    records.push(decodeDelivery(String(reply[index]), reply[index + 1] as string | null));
  }
  return records;
}

/** Only the fields a {@link DeliveryUpdate} owns, so a caller's extra properties are never persisted. */
export function ownUpdate(update: DeliveryUpdate): DeliveryUpdate {
  return {
    status: update.status,
    attempt: update.attempt,
    maxAttempts: update.maxAttempts,
    nextRetryAt: update.nextRetryAt,
    lastAttemptAt: update.lastAttemptAt,
    deliveredAt: update.deliveredAt,
    lastResponseCode: update.lastResponseCode,
    lastErrorMessage: update.lastErrorMessage,
    lastResponseExcerpt: update.lastResponseExcerpt,
    nextAttemptTrigger: update.nextAttemptTrigger,
  };
}

/**
 * The update script's attempt arguments: the history field (`t<n>`) and the
 * attempt's own fields as JSON, or two empty strings when the update records none.
 */
export function attemptArgs(attempt: AttemptRecord | undefined): [field: string, json: string] {
  if (!attempt) return ['', ''];
  const own: AttemptRecord = {
    attempt: attempt.attempt,
    trigger: attempt.trigger,
    startedAt: attempt.startedAt,
    durationMs: attempt.durationMs,
    responseCode: attempt.responseCode,
    errorKind: attempt.errorKind,
    errorMessage: attempt.errorMessage,
    responseExcerpt: attempt.responseExcerpt,
  };
  return [`t${attempt.attempt}`, JSON.stringify(own)];
}

/** Decodes the attempts the list script returns (JSON each, in order). */
export function decodeAttempts(reply: unknown): AttemptRecord[] {
  if (!Array.isArray(reply)) throw unexpectedReply('listAttempts', reply);
  return reply.map((json) => JSON.parse(String(json)) as AttemptRecord);
}

/** The record as inserted (field `r`) with an update applied, without parsing the update back. */
export function applyUpdate(inserted: string, update: DeliveryUpdate): DeliveryRecord {
  return Object.assign(JSON.parse(inserted) as DeliveryRecord, update);
}

/** The {@link CircuitState} fields, in the order the store writes them; null times are stored as ''. */
const CIRCUIT_FIELDS = [
  'status',
  'consecutiveFailures',
  'failingSince',
  'lastFailureAt',
  'lastSuccessAt',
  'openedAt',
  'openUntil',
  'openings',
  'unsuccessfulAttempts',
  'unsuccessfulSince',
] as const satisfies readonly (keyof CircuitState)[];

/** Only the fields a {@link CircuitState} owns (a caller's extra properties are never stored or echoed). */
export function ownCircuitState(state: CircuitState): CircuitState {
  return {
    status: state.status,
    consecutiveFailures: state.consecutiveFailures,
    failingSince: state.failingSince,
    lastFailureAt: state.lastFailureAt,
    lastSuccessAt: state.lastSuccessAt,
    openedAt: state.openedAt,
    openUntil: state.openUntil,
    openings: state.openings,
    unsuccessfulAttempts: state.unsuccessfulAttempts,
    unsuccessfulSince: state.unsuccessfulSince,
  };
}

/** A circuit state as flat field/value pairs for HSET. */
export function circuitFields(state: CircuitState): string[] {
  return CIRCUIT_FIELDS.flatMap((field) => [field, String(state[field] ?? '')]);
}

/**
 * Rebuilds a circuit from its HGETALL reply; null when the agency has none. A hash
 * written before endpoint health existed has no health fields: no run (0, null).
 */
export function decodeCircuit(agencyId: string, fields: Record<string, string>): CircuitRecord | null {
  if (fields.version === undefined) return null;
  const time = (name: (typeof CIRCUIT_FIELDS)[number]): number | null => {
    const value = fields[name];
    return value === undefined || value === '' ? null : Number(value);
  };
  return {
    agencyId,
    version: Number(fields.version),
    status: fields.status as CircuitStatus,
    consecutiveFailures: Number(fields.consecutiveFailures ?? 0),
    failingSince: time('failingSince'),
    lastFailureAt: time('lastFailureAt'),
    lastSuccessAt: time('lastSuccessAt'),
    openedAt: time('openedAt'),
    openUntil: time('openUntil'),
    openings: Number(fields.openings ?? 0),
    unsuccessfulAttempts: Number(fields.unsuccessfulAttempts ?? 0),
    unsuccessfulSince: time('unsuccessfulSince'),
  };
}
