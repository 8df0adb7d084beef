import type { UpsertConfigInput } from '../adapters/store';
import {
  MAX_SIGNING_KEY_OVERLAP_MS,
  type PutConfigBody,
  type RotatedSigningKey,
  type RotateSigningKeyBody,
  rotateSigningKeyBodySchema,
  type SigningJwks,
  type WebhookConfigRecord,
} from '../config/config';
import {
  hasActiveKey,
  rotateSigningKeys,
  signingKeysFor,
  toSigningJwks,
  toSigningPublicKeys,
} from '../config/signing-keys';
import { ConfigNotFoundError, InvalidOptionError, WebhookValidationError } from '../errors';
import { parseWithSchema } from '../validation';
import type { Engine } from './engine';

/** One day: long enough for receivers that cache the JWKS for hours to fetch the new key. */
export const DEFAULT_SIGNING_KEY_OVERLAP_MS = 86_400_000;

/**
 * The service's `signingKeyOverlapMs`: an integer from 0 to seven days.
 * @throws InvalidOptionError
 */
export function resolveSigningKeyOverlap(value: number | undefined): number {
  const resolved = value ?? DEFAULT_SIGNING_KEY_OVERLAP_MS;
  if (Number.isInteger(resolved) && resolved >= 0 && resolved <= MAX_SIGNING_KEY_OVERLAP_MS) return resolved;
  throw new InvalidOptionError(
    '@svc/webhooks-core',
    'signingKeyOverlapMs',
    `signingKeyOverlapMs must be an integer from 0 to ${MAX_SIGNING_KEY_OVERLAP_MS} (7 days); got ${String(value)}.`,
  );
}

/** The signature fields of a PUT /config upsert. */
type SignatureFields = Pick<UpsertConfigInput, 'signatureScheme' | 'signingKeys'>;

/**
 * What a PUT writes of the signature fields, given the stored configuration
 * (null: a create). Omitted fields keep what is stored. Turning asymmetric
 * signatures on makes one key pair; turning them off drops every key.
 * @throws WebhookValidationError (nothing is written) when asymmetric
 *   signatures would be on under the `'service'` scheme, which has no `v1a`
 */
export function putSignatureFields(
  existing: WebhookConfigRecord | null,
  body: Pick<PutConfigBody, 'signatureScheme' | 'asymmetricSignatures'>,
  now: number,
): SignatureFields {
  const storedKeys = existing?.signingKeys ?? [];
  const scheme = body.signatureScheme ?? existing?.signatureScheme ?? 'service';
  const asymmetric = body.asymmetricSignatures ?? hasActiveKey(storedKeys);
  if (asymmetric && scheme === 'service')
    throw asymmetricNeedsStandard(body.asymmetricSignatures === undefined);
  const fields: SignatureFields = {};
  if (body.signatureScheme !== undefined) fields.signatureScheme = body.signatureScheme;
  const signingKeys = signingKeysFor(storedKeys, body.asymmetricSignatures, now);
  if (signingKeys !== undefined) fields.signingKeys = signingKeys;
  return fields;
}

function asymmetricNeedsStandard(keptOn: boolean): WebhookValidationError {
  const message = keptOn
    ? "asymmetricSignatures is on, and the 'service' scheme has no v1a signatures: send asymmetricSignatures: false with it, or keep 'standard' or 'both'."
    : "asymmetricSignatures needs signatureScheme 'standard' or 'both': v1a is a Standard Webhooks signature, which the 'service' scheme does not send.";
  return new WebhookValidationError(message, [{ path: 'asymmetricSignatures', message }]);
}

/**
 * A new active key; the previous one keeps signing for the overlap (`body.overlapMs`,
 * else the service's `signingKeyOverlapMs`; 0 stops it at once). Expired keys are dropped.
 * @throws WebhookValidationError (a bad body, or asymmetric signatures off), ConfigNotFoundError
 */
export async function rotateSigningKey(
  engine: Engine,
  agencyId: string,
  body: RotateSigningKeyBody | undefined,
): Promise<RotatedSigningKey> {
  const { overlapMs } = parseWithSchema(rotateSigningKeyBodySchema, body ?? {}, 'signing key rotation');
  const config = await engine.store.getConfig(agencyId);
  if (!config) throw new ConfigNotFoundError(agencyId);
  if (!hasActiveKey(config.signingKeys)) {
    const message =
      'Asymmetric signatures are off for this agency, so there is no signing key to rotate: turn them on with PUT /config (asymmetricSignatures: true).';
    throw new WebhookValidationError(message, [{ path: 'asymmetricSignatures', message }]);
  }
  const now = engine.clock();
  const keys = rotateSigningKeys(config.signingKeys, now, overlapMs ?? engine.signingKeyOverlapMs);
  if (!(await engine.store.setSigningKeys(agencyId, keys, now))) throw new ConfigNotFoundError(agencyId);
  return { signingPublicKeys: toSigningPublicKeys(keys, now) };
}

/**
 * The agency's JWKS: every key that still signs (`keys: []` when asymmetric signatures are off).
 * @throws ConfigNotFoundError
 */
export async function getPublicKeys(engine: Engine, agencyId: string): Promise<SigningJwks> {
  const config = await engine.store.getConfig(agencyId);
  if (!config) throw new ConfigNotFoundError(agencyId);
  return toSigningJwks(config.signingKeys, engine.clock());
}
