import { InvalidOptionError } from '@svc/webhooks-core';

/** Schema used when none is given. */
export const DEFAULT_SCHEMA = 'webhooks';

/**
 * Letters, digits and underscores, not starting with a digit. Kept this strict
 * (rather than accepting anything quotable) so the name is also safe inside the
 * NOTIFY channel and advisory-lock key derived from it, and reads the same in psql.
 * 50 characters leaves room for the channel prefix within PostgreSQL's 63-byte names.
 */
const SCHEMA_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,49}$/;

/** A validated schema name and the forms the SQL needs. */
export interface SchemaName {
  /** The name as given. */
  name: string;
  /** Double-quoted identifier, ready to splice into SQL. */
  quoted: string;
}

/**
 * Validates a schema name and quotes it.
 * @throws InvalidOptionError (`invalid_option`, option `schema`) when the name is not a plain identifier
 */
export function parseSchemaName(name: string = DEFAULT_SCHEMA): SchemaName {
  if (typeof name !== 'string' || !SCHEMA_NAME_PATTERN.test(name)) {
    throw new InvalidOptionError(
      '@svc/webhooks-pg',
      'schema',
      `Invalid PostgreSQL schema name ${JSON.stringify(name)}: use 1-50 letters, digits or underscores, ` +
        'not starting with a digit.',
    );
  }
  return { name, quoted: `"${name}"` };
}
