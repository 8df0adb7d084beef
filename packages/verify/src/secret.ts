import { WebhookVerificationError } from './errors';

/**
 * The agency's signing secret, or several during a rotation changeover (a delivery is valid when any
 * of them produced any of its `v1` signatures). The HMAC key is the secret string's UTF-8 bytes.
 */
export type WebhookSecret = string | readonly string[];

const MASK_PREFIX = 'service_whsec_';

/**
 * Checks the secret argument and returns it as a list. Fails closed: anything that is not one or
 * more usable secrets is `invalid_secret`, never a pass.
 */
export function readSecrets(secret: WebhookSecret | null | undefined): readonly string[] {
  if (typeof secret === 'string') {
    assertUsableSecret(secret);
    return [secret];
  }
  if (!Array.isArray(secret)) {
    throw invalidSecret(
      secret === undefined || secret === null
        ? 'No signing secret was given. Pass the secret returned when the webhook configuration was created or its secret rotated.'
        : `The signing secret is a ${typeof secret}; pass it as a string (or an array of strings).`,
    );
  }
  if (secret.length === 0) throw invalidSecret('The list of signing secrets is empty; pass at least one.');
  for (const one of secret) assertUsableSecret(one);
  return secret;
}

/** Rejects the secrets receivers most often pass by mistake, with a message naming the fix. */
export function assertUsableSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== 'string') {
    throw invalidSecret(`A signing secret is a ${typeof secret}; secrets are strings.`);
  }
  if (secret.length === 0) {
    throw invalidSecret('The signing secret is empty. Is the environment variable that should hold it set?');
  }
  if (isMaskedSecret(secret)) {
    throw invalidSecret(
      'The signing secret is the masked form ("service_whsec_********…") that GET /config returns, not the ' +
        'secret itself. Use the full value returned when the configuration was created or the secret rotated; ' +
        'if it is lost, rotate the secret (POST /config/rotate-secret) and store the new value.',
    );
  }
}

/** The masked form is `service_whsec_` + eight mask characters + the secret's last four characters. */
export function isMaskedSecret(secret: string): boolean {
  return secret.startsWith(MASK_PREFIX) && secret.includes('*', MASK_PREFIX.length);
}

/** The `invalid_secret` error with `message`. */
export function invalidSecret(message: string): WebhookVerificationError {
  return new WebhookVerificationError('invalid_secret', message);
}
