import { z } from 'zod';

/**
 * Which signature headers each attempt carries: `'service'` (the spec's own
 * `X-Service-Signature`, the default), `'standard'` (Standard Webhooks:
 * `webhook-id`, `webhook-timestamp`, `webhook-signature`) or `'both'` (both
 * families, from one clock read).
 */
export const signatureSchemeSchema = z.enum(['service', 'standard', 'both']).meta({
  id: 'SignatureScheme',
  description:
    "Signature headers each attempt carries: 'service' (X-Service-Signature, the default), " +
    "'standard' (Standard Webhooks webhook-* headers) or 'both'",
});
/** See {@link signatureSchemeSchema}. */
export type SignatureScheme = z.infer<typeof signatureSchemeSchema>;

/**
 * Body of PUT /config: the three delivery fields required, the two signature
 * fields optional (omitted: unchanged on update; `'service'` and `false` on
 * create), unknown fields refused. Whether `subscribedEventTypes` names known
 * events is checked against the service's catalogue (which the host can
 * extend), and whether `asymmetricSignatures` suits the scheme by the service,
 * not by this schema.
 */
export const putConfigBodySchema = z
  .strictObject({
    webhookUrl: z.string().min(1).max(2048).meta({ description: 'HTTPS URL that receives deliveries' }),
    enabled: z.boolean().meta({ description: 'Whether delivery is active' }),
    subscribedEventTypes: z
      .array(z.string().min(1).max(100))
      .max(500)
      .meta({ description: 'Event types to subscribe to (duplicates are removed)' }),
    signatureScheme: signatureSchemeSchema.optional().meta({
      description: "Signature headers to send; omitted: unchanged (on create: 'service')",
    }),
    asymmetricSignatures: z
      .boolean()
      .optional()
      .meta({
        description:
          "Also sign with an Ed25519 key pair (Standard Webhooks v1a); needs 'standard' or 'both'. " +
          'Omitted: unchanged (on create: false)',
      }),
  })
  .meta({ id: 'PutConfigBody' });
export type PutConfigBody = z.infer<typeof putConfigBodySchema>;

/**
 * A public key receivers verify `v1a` signatures with. The active key has
 * `expiresAt: null`; a retiring one is listed (and still signs) until it expires.
 */
export const signingPublicKeySchema = z
  .object({
    kid: z.string().meta({ description: 'Key id (`whkey_…`), the JWK `kid`' }),
    publicKey: z.string().meta({ description: 'Ed25519 public key, `whpk_` + base64 of the 32 raw bytes' }),
    createdAt: z.number().int().meta({ description: 'Epoch ms' }),
    expiresAt: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Epoch ms after which the key no longer signs; null for the active key' }),
  })
  .meta({ id: 'SigningPublicKey' });
/** See {@link signingPublicKeySchema}. */
export type SigningPublicKey = z.infer<typeof signingPublicKeySchema>;

/** The `standardSigningSecret` field of the views that show the full secret. */
function standardSigningSecretSchema() {
  return z.string().optional().meta({
    description:
      "The secret in Standard Webhooks form (`whsec_` + base64); only where the full secret is shown and the scheme is 'standard' or 'both'",
  });
}

/** The configuration as the API shows it: `signingSecret` full only on create and rotate. */
export const webhookConfigSchema = z
  .object({
    id: z.string(),
    webhookUrl: z.string(),
    signingSecret: z.string().meta({
      description: 'Full value on creation and rotation; masked (`service_whsec_********abcd`) otherwise',
    }),
    enabled: z.boolean(),
    subscribedEventTypes: z.array(z.string()),
    signatureScheme: signatureSchemeSchema,
    asymmetricSignatures: z
      .boolean()
      .meta({ description: 'Whether attempts also carry Ed25519 (v1a) signatures' }),
    standardSigningSecret: standardSigningSecretSchema(),
    signingPublicKeys: z.array(signingPublicKeySchema).meta({
      description:
        'Every public key still published (the active one, then retiring ones); [] when asymmetric signatures are off',
    }),
  })
  .meta({ id: 'WebhookConfig' });
export type WebhookConfig = z.infer<typeof webhookConfigSchema>;

/** Response of rotate-secret: the full new secret, shown once (with its `whsec_` form under a Standard Webhooks scheme). */
export const rotatedSecretSchema = z
  .object({ signingSecret: z.string(), standardSigningSecret: standardSigningSecretSchema() })
  .meta({ id: 'RotatedSecret' });
export type RotatedSecret = z.infer<typeof rotatedSecretSchema>;

/** Response of rotate-signing-key: the public keys published after the rotation, active first. */
export const rotatedSigningKeySchema = z
  .object({ signingPublicKeys: z.array(signingPublicKeySchema) })
  .meta({ id: 'RotatedSigningKey' });
export type RotatedSigningKey = z.infer<typeof rotatedSigningKeySchema>;

/** Seven days: the longest overlap a signing-key rotation may ask for, per call or as the service's default. */
export const MAX_SIGNING_KEY_OVERLAP_MS = 604_800_000;

/** Body of rotate-signing-key. */
export const rotateSigningKeyBodySchema = z
  .strictObject({
    overlapMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_SIGNING_KEY_OVERLAP_MS)
      .optional()
      .meta({
        description:
          'How long the previous key keeps signing beside the new one, in ms (0: stops at once; at most 7 days). ' +
          "Omitted: the service's `signingKeyOverlapMs` (1 day by default)",
      }),
  })
  .meta({ id: 'RotateSigningKeyBody' });
export type RotateSigningKeyBody = z.infer<typeof rotateSigningKeyBodySchema>;

/** One public key as a JSON Web Key (RFC 8037, Ed25519). */
export const signingJwkSchema = z
  .object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string().meta({ description: 'The raw public key, base64url without padding' }),
    kid: z.string(),
    use: z.literal('sig'),
    alg: z.literal('EdDSA'),
  })
  .meta({ id: 'SigningJwk' });
export type SigningJwk = z.infer<typeof signingJwkSchema>;

/** Response of the public-keys endpoint: a JWK Set of every key still signing (`keys: []` when off). */
export const signingJwksSchema = z.object({ keys: z.array(signingJwkSchema) }).meta({ id: 'SigningJwks' });
export type SigningJwks = z.infer<typeof signingJwksSchema>;

/** Response of the test endpoint. */
export const testResultSchema = z
  .object({
    success: z.boolean(),
    statusCode: z
      .number()
      .int()
      .meta({ description: 'HTTP status from the receiver; 0 when no response came' }),
    message: z.string(),
  })
  .meta({ id: 'TestResult' });
export type TestResult = z.infer<typeof testResultSchema>;

/**
 * A configuration as the stores hold it (one per agency). The secret is stored
 * because every attempt signs with it (sealed, with the service's
 * `secretEncryption`); it is never logged.
 */
export interface WebhookConfigRecord {
  id: string;
  agencyId: string;
  webhookUrl: string;
  /**
   * 64 lowercase hex characters (32 random bytes), as the service's calls see it. A store
   * keeps whatever string it is given: behind a service with `secretEncryption`, the sealed
   * form (`enc:v1:<keyId>:…`).
   */
  signingSecret: string;
  enabled: boolean;
  subscribedEventTypes: string[];
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms. */
  updatedAt: number;
  /** When the service disabled it (epoch ms; see {@link WebhookStore.disableConfig}); null otherwise, and after every upsert. */
  disabledAt: number | null;
  /**
   * Why the service disabled it (`auto_disabled_failing`, `receiver_gone`); null otherwise,
   * and after every upsert.
   */
  disabledReason: string | null;
  /** Signature headers each attempt carries. `'service'` for a record written before the field existed. */
  signatureScheme: SignatureScheme;
  /**
   * Ed25519 key pairs for `v1a` signatures, active first (`expiresAt: null`), then retiring
   * ones. Empty when asymmetric signatures are off, and for a record written before the field existed.
   */
  signingKeys: SigningKeyRecord[];
}

/** One Ed25519 signing key pair of a configuration (see {@link WebhookConfigRecord.signingKeys}). */
export interface SigningKeyRecord {
  /** Key id: `whkey_` + a new id. */
  kid: string;
  /**
   * `whsk_` + base64 of the 32-byte seed, as the service's calls see it. A store keeps
   * whatever string it is given: behind a service with `secretEncryption`, the sealed form.
   */
  privateKey: string;
  /** `whpk_` + base64 of the 32-byte raw public key. */
  publicKey: string;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms after which the key no longer signs (a retiring key); null for the active key. */
  expiresAt: number | null;
}
