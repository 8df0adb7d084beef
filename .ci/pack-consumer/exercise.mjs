// Shared by the ESM and the CJS consumer: checks each entry's exports and runs
// the main paths (sign + verify on both builds, a memory-backed service with
// emit and the management calls, the router and the adapters' factories).

/** Every value an entry must export, by entry name. */
const EXPECTED = {
  core: [
    'createWebhookService',
    'createWorker',
    'createMemoryStore',
    'createMemoryQueue',
    'createEventCatalogue',
    'defineEvent',
    'combineHooks',
    'createRecoverySweep',
    'WebhookError',
    'InvalidOptionError',
  ],
  otel: ['createOpenTelemetryHooks', 'observeWorker'],
  adapterKit: ['withinDeadline', 'sleep', 'setNewest', 'assertNoTransaction'],
  router: ['createWebhooksRouter', 'buildOpenApiDocument'],
  routerPortal: ['createWebhooksPortal'],
  pg: ['createPgStore', 'createPgQueue', 'migrate'],
  redis: ['createRedisStore', 'createRedisQueue'],
  verify: ['verifyWebhook', 'verifyWebhookSignature', 'signWebhook', 'WebhookVerificationError'],
  verifyWeb: ['verifyWebhookAsync', 'signWebhookAsync'],
  verifyExpress: ['verifyWebhookMiddleware'],
  verifyFetch: ['verifyWebhookRequest', 'webhookHandler'],
};

export async function exerciseEntries(entries, assert) {
  for (const [entry, names] of Object.entries(EXPECTED)) {
    for (const name of names) {
      assert.equal(typeof entries[entry][name], 'function', `${entry} exports ${name}`);
    }
  }
  await signAndVerify(entries, assert);
  await runService(entries, assert);
  servePortal(entries, assert);
}

/** The portal page's router finds the standalone script in the installed portal package. */
function servePortal({ routerPortal, portalAssets }, assert) {
  assert.equal(typeof portalAssets.standaloneScriptPath, 'string');
  assert.match(portalAssets.standaloneScriptPath, /webhooks-portal[\\/]dist[\\/]standalone\.js$/);
  assert.equal(typeof routerPortal.createWebhooksPortal({ title: 'Pack test' }), 'function');
}

async function signAndVerify({ verify, verifyWeb }, assert) {
  const secret = 'a'.repeat(64);
  const body = JSON.stringify({ webhookId: 'whdel_1', eventType: 'job_created', metadata: {} });
  const header = verify.signWebhook(body, secret);
  assert.deepEqual(verify.verifyWebhook(body, header, secret).webhookId, 'whdel_1');
  const envelope = await verifyWeb.verifyWebhookAsync(
    body,
    await verifyWeb.signWebhookAsync(body, secret),
    secret,
  );
  assert.equal(envelope.eventType, 'job_created');
  assert.throws(() => verify.verifyWebhook(`${body} `, header, secret), verify.WebhookVerificationError);
}

async function runService({ core, otel, schemas, router, express }, assert) {
  assert.equal(
    schemas.putConfigBodySchema.safeParse({ webhookUrl: 'x' }).success,
    false,
    'schemas entry parses',
  );
  const webhooks = core.createWebhookService({
    store: core.createMemoryStore(),
    queue: core.createMemoryQueue(),
    // A fixed public answer keeps the URL check off the network.
    urlPolicy: { resolve: async () => [{ address: '93.184.215.14', family: 4 }] },
    hooks: otel.createOpenTelemetryHooks(),
  });
  const config = await webhooks.putConfig('agency-1', {
    webhookUrl: 'https://hooks.example.com/in',
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
  });
  assert.equal(config.created, true);
  const emitted = await webhooks.emit({
    agencyId: 'agency-1',
    eventType: 'job_cancelled',
    entityId: 'job-1',
    metadata: { jobId: 'job-1', agencyId: 'agency-1', jobNumber: 1, reason: 'pack test' },
  });
  assert.ok(emitted?.deliveryId);
  const list = await webhooks.listDeliveries('agency-1');
  assert.equal(list.deliveries.length, 1);
  await assert.rejects(webhooks.getConfig('agency-2'), core.WebhookError);

  const app = express();
  app.use(
    '/v1/agency/webhooks',
    router.createWebhooksRouter({ service: webhooks, authenticate: async () => null }),
  );
  await webhooks.close();
}
