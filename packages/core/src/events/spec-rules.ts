import type { ValidationIssue } from '../errors';

/*
 * The spec's event rules that span more than one field, checked at emit so a receiver never gets an
 * event the spec says cannot exist. They are keyed by event type, not attached to the built-in
 * definitions: a host that gives `message_sent` or `quote_approved` its own metadata schema is still
 * bound by them. Each rule reads only fields it finds, so a host schema without `jobId` is not refused
 * for lacking it; the schema decides which fields exist.
 */

/** The envelope fields and metadata (schema output) a rule reads. */
export interface RuleInput {
  eventType: string;
  parentEntityId: string | null;
  metadata: Record<string, unknown>;
}

/** Fields that are null on `job_created`'s normal path and describe the source job on its transfer path. */
const TRANSFER_FIELDS = [
  'originalJobId',
  'originalJobNumber',
  'originalAgencyId',
  'originalAgencyName',
  'cancellationReason',
  'propertyRecreated',
  'transferredToServiceMaintenance',
] as const;

/** The source job and agency of a transfer: present (non-null) on the transfer path. */
const TRANSFER_SOURCE_FIELDS = [
  'originalJobId',
  'originalJobNumber',
  'originalAgencyId',
  'originalAgencyName',
];

function quoteApproved(event: RuleInput): ValidationIssue[] {
  const jobId = event.metadata.jobId;
  if (event.parentEntityId === null) {
    return [
      { path: 'parentEntityId', message: 'Required for quote_approved: pass the job id (metadata.jobId)' },
    ];
  }
  if (typeof jobId === 'string' && event.parentEntityId !== jobId) {
    return [
      {
        path: 'parentEntityId',
        message: `Must be the quote's job, metadata.jobId ("${jobId}"), for quote_approved`,
      },
    ];
  }
  return [];
}

function messageSent(event: RuleInput): ValidationIssue[] {
  if (event.parentEntityId !== null) return [];
  return [{ path: 'parentEntityId', message: 'Required for message_sent: pass the thread id' }];
}

/**
 * `job_created` is either the normal path (every transfer field null) or the transfer path (a job
 * moved to the operator's maintenance agency: no property, the source job and agency named, a
 * reason, `propertyRecreated` and `transferredToServiceMaintenance` true). The path is read from
 * `transferredToServiceMaintenance`, so each issue can say which path the event claims.
 */
function jobCreated(event: RuleInput): ValidationIssue[] {
  const metadata = event.metadata;
  if (!TRANSFER_FIELDS.every((field) => field in metadata)) return [];
  const path = (field: string) => `metadata.${field}`;
  const transferred = metadata.transferredToServiceMaintenance;
  if (transferred === null) {
    return TRANSFER_FIELDS.filter((field) => metadata[field] !== null).map((field) => ({
      path: path(field),
      message:
        'Must be null on the normal path (transferredToServiceMaintenance is null); for a transfer set transferredToServiceMaintenance to true',
    }));
  }
  if (transferred !== true) {
    return [
      {
        path: path('transferredToServiceMaintenance'),
        message: 'Must be null (normal path) or true (transfer path)',
      },
    ];
  }
  const issues: ValidationIssue[] = [];
  const onTransfer = 'on the transfer path (transferredToServiceMaintenance is true)';
  if ('propertyId' in metadata && metadata.propertyId !== null) {
    issues.push({ path: path('propertyId'), message: `Must be null ${onTransfer}` });
  }
  for (const field of TRANSFER_SOURCE_FIELDS) {
    if (metadata[field] === null) {
      issues.push({ path: path(field), message: `Required ${onTransfer}: the job and agency it came from` });
    }
  }
  if (typeof metadata.cancellationReason !== 'string' || metadata.cancellationReason === '') {
    issues.push({ path: path('cancellationReason'), message: `Must hold the reason text ${onTransfer}` });
  }
  if (metadata.propertyRecreated !== true) {
    issues.push({ path: path('propertyRecreated'), message: `Must be true ${onTransfer}` });
  }
  return issues;
}

const RULES: ReadonlyMap<string, (event: RuleInput) => ValidationIssue[]> = new Map([
  ['quote_approved', quoteApproved],
  ['message_sent', messageSent],
  ['job_created', jobCreated],
]);

/** The issues the spec's rules for `event.eventType` find; empty when it obeys them (or has none). */
export function specRuleIssues(event: RuleInput): ValidationIssue[] {
  return RULES.get(event.eventType)?.(event) ?? [];
}
