import { redactSecrets } from '@svc/webhooks-core/adapter-kit';

/** What a withheld field of a PostgreSQL error says instead. */
const WITHHELD = '(withheld by @svc/webhooks-pg: the statement wrote a signing secret)';

/** Fields of node-postgres' DatabaseError that quote data rather than describe the error. */
const QUOTING_FIELDS = ['detail', 'where', 'internalQuery'] as const;

/**
 * Runs a statement that writes a signing secret, and makes what it throws safe
 * to log. node-postgres never puts parameters on its errors, but PostgreSQL's
 * own fields can quote them: `detail` of a constraint violation is "Failing row
 * contains (…)", the secret included, and `where` carries the statement's
 * parameters when the server sets `log_parameter_max_length_on_error`. Both cut
 * long values to a length, so redacting the whole secret would miss a cut
 * copy: those fields are withheld, and the secret is redacted everywhere else
 * (message, stack, anything a wrapper added). Code, table, column and
 * constraint stay, and say what went wrong.
 */
export async function writingSecret<T>(secrets: readonly string[], write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (typeof error === 'object' && error !== null) {
      const fields = error as Record<string, unknown>;
      for (const field of QUOTING_FIELDS) if (typeof fields[field] === 'string') fields[field] = WITHHELD;
    }
    throw redactSecrets(error, secrets);
  }
}
