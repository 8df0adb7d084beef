import { z } from 'zod';
import { attemptErrorKindSchema } from './attempt-outcome';

/**
 * Why an attempt was made: `automatic` (the first attempt and every retry on the
 * schedule), `replay` (the attempt a manual replay of a failed delivery asked for),
 * `recovery` (the attempt a bulk recovery asked for).
 */
export const attemptTriggerSchema = z.enum(['automatic', 'replay', 'recovery']).meta({
  description:
    '`automatic`: the first attempt or a scheduled retry; `replay`: asked for by a replay of the failed delivery; `recovery`: asked for by a bulk recovery.',
});
/** Why an attempt was made; see {@link attemptTriggerSchema}. */
export type AttemptTrigger = z.infer<typeof attemptTriggerSchema>;

/** The triggers a replay can give the attempt it asks for. */
export type ReplayTrigger = Exclude<AttemptTrigger, 'automatic'>;

const epochMs = z.number().int().meta({ description: 'Epoch milliseconds' });

/**
 * One attempt of a delivery, as the attempt history keeps it and
 * `GET /deliveries/:id/attempts` answers it. Fields that do not apply are null:
 * no `responseCode` when no response came, no `errorKind` or `errorMessage` on a
 * success, no `responseExcerpt` when no body was read.
 */
export const attemptRecordSchema = z
  .object({
    attempt: z
      .number()
      .int()
      .min(1)
      .meta({ description: '1 for the first attempt; the count continues across replays.' }),
    trigger: attemptTriggerSchema,
    startedAt: epochMs.meta({ description: 'When the request was sent, in epoch milliseconds.' }),
    durationMs: z.number().int().min(0).meta({ description: 'Wall time of the attempt in milliseconds.' }),
    responseCode: z.number().int().nullable().meta({ description: 'HTTP status of the answer.' }),
    errorKind: attemptErrorKindSchema.nullable(),
    errorMessage: z
      .string()
      .nullable()
      .meta({ description: 'What went wrong, in a fixed text per error kind; never raw network detail.' }),
    responseExcerpt: z.string().nullable().meta({
      description:
        'First bytes (at most 4 KiB) of the answer’s body, without control characters. Written by the receiver: show it as text.',
    }),
  })
  .meta({ id: 'AttemptRecord' });
/** One attempt of a delivery, as stores keep it and the API answers it; see {@link attemptRecordSchema}. */
export type AttemptRecord = z.infer<typeof attemptRecordSchema>;

/** Response of `GET /deliveries/:id/attempts`: every attempt of the delivery, oldest first. */
export const attemptListSchema = z
  .object({ attempts: z.array(attemptRecordSchema) })
  .meta({ id: 'AttemptList' });
/** Response of `webhooks.listAttempts(agencyId, deliveryId)`; see {@link attemptListSchema}. */
export type AttemptList = z.infer<typeof attemptListSchema>;
