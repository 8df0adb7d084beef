import { z } from 'zod';

/**
 * The allowed values of an envelope's `entityType` (spec: Entity types), in the
 * spec's order.
 */
export const entityTypeSchema = z
  .enum([
    'job',
    'quote',
    'invoice',
    'approval',
    'property',
    'estate',
    'agent',
    'agency',
    'service_provider',
    'thread',
    'message',
    'user',
    'communications',
  ])
  .meta({ id: 'EntityType', description: 'Kind of business object an event refers to' });

/** One of the 13 entity types. */
export type EntityType = z.infer<typeof entityTypeSchema>;

/** The 13 entity types, in the spec's order. */
export const ENTITY_TYPES: readonly EntityType[] = entityTypeSchema.options;

/** Roles an event's author can have, as written in the envelope's `createdByRole`. */
export const createdByRoleSchema = z.enum(['Agent', 'ServiceProvider', 'System', 'Operations']);
/** One of the four author roles. */
export type CreatedByRole = z.infer<typeof createdByRoleSchema>;
