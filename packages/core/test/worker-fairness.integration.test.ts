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

  it('a receiver that never answers gets two attempts (sockets), not its cap; an answering one gets the cap', async () => {
    harness = await startServiceHarness({
      service: { transport: { timeoutMs: 3_000 } },
      worker: { concurrency: 32, perAgencyConcurrency: 8 },
    });
    for (const agency of ['hung', 'healthy']) {
      await harness.configure(agency, ['job_cancelled'], `/hooks/${agency}`);
    }
    let healthyNow = 0;
    let healthyPeak = 0;
    harness.receiver.respond(async (request) => {
      if (agencyOf(request) === 'hung') return { hangMs: 60_000 };
      healthyNow += 1;
      healthyPeak = Math.max(healthyPeak, healthyNow);
      await new Promise((resolve) => setTimeout(resolve, 30));
      healthyNow -= 1;
      return { status: 200 };
    });
    const hung = await Promise.all(
      Array.from({ length: 8 }, (_, index) => harness?.webhooks.emit(jobCancelled('hung', index + 1))),
    );
    const healthy = await Promise.all(
      Array.from({ length: 40 }, (_, index) => harness?.webhooks.emit(jobCancelled('healthy', index + 1))),
    );
    for (const delivery of healthy)
      await harness.waitForStatus('healthy', delivery?.deliveryId as string, 'success');
    const hungRequests = harness.receiver.requests.filter((request) => agencyOf(request) === 'hung');
    expect(hungRequests.length, 'attempts sent to the receiver that never answers').toBe(2);
    expect(healthyPeak, 'attempts in flight at once to the answering receiver').toBe(8);
    // The hung agency's other six are held by the worker (leased, not sent), none lost or failed.
    const records = await Promise.all(
      hung.map((delivery) => harness?.webhooks.store.getDelivery(delivery?.deliveryId as string)),
    );
    expect(records.map((record) => [record?.status, record?.attempt])).toEqual(Array(8).fill(['pending', 0]));
  });

  it('on stop, claims still waiting for their agency’s window go back to the queue, due at once', async () => {
    harness = await startServiceHarness({
      service: { transport: { timeoutMs: 500 } },
      worker: { concurrency: 32, perAgencyConcurrency: 8 },
    });
    await harness.configure('hung', ['job_cancelled'], '/hooks/hung');
    harness.receiver.respond(() => ({ hangMs: 60_000 }));
    const emitted = await Promise.all(
      Array.from({ length: 8 }, (_, index) => harness?.webhooks.emit(jobCancelled('hung', index + 1))),
    );
    await harness.receiver.waitForRequests(2);
    expect(harness.worker.inFlight, 'claims the worker holds').toBe(8);
    await harness.worker.stop();
    expect(harness.worker.inFlight).toBe(0);
    // The six never sent are due now, not leased until their lease runs out (the two sent ones
    // timed out and are due again too: the harness retries within milliseconds).
    const claims = await harness.webhooks.queue.claim({ limit: 10, leaseMs: 30_000, now: Date.now() });
    const sent = new Set(
      harness.receiver.requests.map((request) => String(request.headers['x-service-webhook-id']).slice(6)),
    );
    const notSent = emitted.map((delivery) => delivery?.deliveryId as string).filter((id) => !sent.has(id));
    expect(notSent).toHaveLength(6);
    expect(claims.map((claim) => claim.deliveryId)).toEqual(expect.arrayContaining(notSent));
  });
});
