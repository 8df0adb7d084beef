/**
 * Events the demo emits, as `POST /demo/emit` bodies (an emit input without
 * `agencyId`, which comes from the token). Metadata follows the spec's shapes:
 * every field present, null where it does not apply.
 */
export function jobCreated(agencyId: string) {
  return {
    eventType: 'job_created',
    entityId: 'job-1042',
    createdById: 'agent-7',
    createdByRole: 'Agent',
    metadata: {
      jobId: 'job-1042',
      agencyId,
      jobNumber: 1042,
      categoryId: 'plumbing',
      propertyId: 'property-12',
      estateId: null,
      requestorType: null,
      requestorInfo: null,
      originalJobId: null,
      originalJobNumber: null,
      originalAgencyId: null,
      originalAgencyName: null,
      cancellationReason: null,
      propertyRecreated: null,
      transferredToServiceMaintenance: null,
    },
  };
}

export function quoteApproved(agencyId: string) {
  return {
    eventType: 'quote_approved',
    entityId: 'quote-88',
    parentEntityId: 'job-1042',
    createdByRole: 'Agent',
    metadata: {
      fulfilmentId: 'fulfilment-3',
      jobId: 'job-1042',
      agencyId,
      jobNumber: 1042,
      serviceProviderId: 'sp-21',
      quoteStatus: 'approved',
    },
  };
}

export function propertyCreated(agencyId: string) {
  return {
    eventType: 'property_created',
    entityId: 'property-12',
    metadata: {
      propertyId: 'property-12',
      agencyId,
      address: {
        formatted: '14 Loop Street, Cape Town City Centre, Cape Town, 8001',
        street: { name: 'Loop Street', number: '14' },
        suburb: 'Cape Town City Centre',
        city: 'Cape Town',
        province: 'Western Cape',
        postalCode: '8001',
        unitNumber: null,
      },
      estateId: null,
      estateName: null,
      managingAgentId: 'agent-7',
      vacant: true,
    },
  };
}

export function jobCancelled(agencyId: string) {
  return {
    eventType: 'job_cancelled',
    entityId: 'job-1043',
    metadata: { jobId: 'job-1043', agencyId, jobNumber: 1043, reason: 'Duplicate request' },
  };
}

export function jobCompleted(agencyId: string) {
  return {
    eventType: 'job_completed',
    entityId: 'job-1042',
    metadata: { jobId: 'job-1042', agencyId, jobNumber: 1042 },
  };
}
