import { jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { afterEach, describe, expect, it } from 'vitest';

/*
 * Isolation at the worker, through the real HTTPS receiver: an agency's backlog
 * or its hanging receiver costs that agency, not the others.
 */

let harness: ServiceHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function agencyOf(request: { path: string }): string {
  return request.path.split('/')[2] ?? '';
}

describe('the worker shares its slots fairly across agencies', () => {
  it("an agency's backlog does not hold back another agency's delivery", async () => {
    harness = await startServiceHarness({ worker: { concurrency: 2, perAgencyConcurrency: 2 } });
    await harness.configure('agency-a', ['job_cancelled'], '/hooks/agency-a');
    await harness.configure('agency-b', ['job_cancelled'], '/hooks/agency-b');
    harness.receiver.respond(() => ({ status: 200, hangMs: 5 }));
    const backlog = await Promise.all(
      Array.from({ length: 60 }, (_, index) => harness?.webhooks.emit(jobCancelled('agency-a', index + 1))),
    );
    const lone = await harness.webhooks.emit(jobCancelled('agency-b'));
    await harness.waitForStatus('agency-b', lone?.deliveryId as string, 'success');
    for (const delivery of backlog)
      await harness.waitForStatus('agency-a', delivery?.deliveryId as string, 'success');
    const order = harness.receiver.requests.map(agencyOf);
    // Round robin: agency-b's turn comes at the next claim after it was emitted,
    // not after the 60 of agency-a queued before it.
    expect(order.indexOf('agency-b'), `position of agency-b's delivery in ${order.length}`).toBeLessThan(10);
  });

  it("agencies whose receivers hang keep to their cap; a healthy agency's deliveries all go meanwhile", async () => {
    harness = await startServiceHarness({
      service: { transport: { timeoutMs: 3_000 } },
      worker: { concurrency: 6, perAgencyConcurrency: 2 },
    });
    for (const agency of ['hung-1', 'hung-2', 'healthy']) {
      await harness.configure(agency, ['job_cancelled'], `/hooks/${agency}`);
    }
    harness.receiver.respond((request) =>
      agencyOf(request).startsWith('hung') ? { hangMs: 60_000 } : { status: 200 },
    );
    const hung = await Promise.all(
      ['hung-1', 'hung-2'].flatMap((agency) =>
        Array.from({ length: 10 }, (_, index) => harness?.webhooks.emit(jobCancelled(agency, index + 1))),
      ),
    );
    const healthy = await Promise.all(
      Array.from({ length: 20 }, (_, index) => harness?.webhooks.emit(jobCancelled('healthy', index + 1))),
    );
    for (const delivery of healthy)
      await harness.waitForStatus('healthy', delivery?.deliveryId as string, 'success');
    // Every healthy delivery succeeded before any hanging attempt could end (3 s):
    // the hung agencies held 2 slots each and never the healthy one's.
    const hungRecords = await Promise.all(
      hung.map((delivery) => harness?.webhooks.store.getDelivery(delivery?.deliveryId as string)),
    );
    expect(hungRecords.map((record) => record?.attempt)).toEqual(Array(20).fill(0));
    const inFlight = harness.receiver.requests.filter((request) => agencyOf(request).startsWith('hung'));
    expect(inFlight.length, 'hanging requests in flight (2 per agency)').toBe(4);
  });
});
