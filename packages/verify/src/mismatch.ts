import { WebhookVerificationError } from './errors';

/** The error for a signature that matches no secret, listing the causes in the order they occur in practice. */
export function signatureMismatch(secretCount: number): WebhookVerificationError {
  const secrets = secretCount === 1 ? 'the secret' : `any of the ${secretCount} secrets`;
  return new WebhookVerificationError(
    'signature_mismatch',
    `No v1 signature matches the HMAC-SHA256 of "<t>.<raw body>" under ${secrets}. Check that you verify ` +
      'the raw body exactly as received (not JSON that was parsed and re-serialised, and not a body that ' +
      'middleware altered), and that the secret is the current one: after a rotation only the new secret ' +
      'works (pass [newSecret, oldSecret] while you switch over).',
  );
}
