import { z } from 'zod';

/**
 * Body of PUT /config: all three fields required, unknown fields refused.
 * Whether `subscribedEventTypes` names known events is checked against the
 * service's catalogue (which the host can extend), not by this schema.
 */
export const putConfigBodySchema = z
  .strictObject({
    webhookUrl: z.string().min(1).max(2048).meta({ description: 'HTTPS URL that receives deliveries' }),
    enabled: z.boolean().meta({ description: 'Whether delivery is active' }),
    subscribedEventTypes: z
      .array(z.string().min(1).max(100))
      .max(500)
      .meta({ description: 'Event types to subscribe to (duplicates are removed)' }),
  })
  .meta({ id: 'PutConfigBody' });
export type PutConfigBody = z.infer<typeof putConfigBodySchema>;

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
  })
  .meta({ id: 'WebhookConfig' });
export type WebhookConfig = z.infer<typeof webhookConfigSchema>;

/** Response of rotate-secret: the full new secret, shown once. */
export const rotatedSecretSchema = z.object({ signingSecret: z.string() }).meta({ id: 'RotatedSecret' });
export type RotatedSecret = z.infer<typeof rotatedSecretSchema>;

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
  /** Why the service disabled it (`auto_disabled_failing`); null otherwise, and after every upsert. */
  disabledReason: string | null;
}
