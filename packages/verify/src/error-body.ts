import type { WebhookVerificationError } from './errors';

/** The JSON body the framework helpers send with a 401, the shape every error of the service uses. */
export interface WebhookErrorBody {
  error: { code: string; message: string };
}

/** Builds the 401 body from a verification error; the message never contains the secret. */
export function toErrorBody(error: WebhookVerificationError): WebhookErrorBody {
  return { error: { code: error.code, message: error.message } };
}
