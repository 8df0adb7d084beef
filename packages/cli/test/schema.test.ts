import { fileURLToPath } from 'node:url';
import { builtInEvents, webhookTestEvent } from '@svc/webhooks-core';
import { buildEventJsonSchema } from '@svc/webhooks-core/schemas';
import { describe, expect, it } from 'vitest';
import { runBin, tempFile } from './run-cli';

const HOST_EVENTS = fileURLToPath(new URL('./fixtures/host-events.mjs', import.meta.url));
const published = [...builtInEvents, webhookTestEvent];

describe('svc-webhooks schema', () => {
  it('lists every event type with its entity type and meaning', async () => {
    const run = await runBin(['schema']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.map((line) => line.split(' ')[0])).toEqual(published.map((definition) => definition.type));
    expect(lines[0]).toMatch(/^job_created +\(job\) +A maintenance job was created\.$/);
  });

  it('prints one type’s JSON Schema, the one core generates from the zod schemas', async () => {
    const run = await runBin(['schema', 'property_created']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(buildEventJsonSchema(builtInEvents[3]));
  });

  it('--example prints the example envelope, the same on every run', async () => {
    const first = await runBin(['schema', 'message_sent', '--example']);
    const second = await runBin(['schema', 'message_sent', '--example']);
    expect(first.stdout).toBe(second.stdout);
    expect(JSON.parse(first.stdout)).toEqual(
      (buildEventJsonSchema(builtInEvents[7]).examples as unknown[])[0],
    );
  });

  it('--json prints every type’s schema, keyed by type', async () => {
    const run = await runBin(['schema', '--json']);
    const schemas = JSON.parse(run.stdout) as Record<string, { title: string }>;
    expect(Object.keys(schemas)).toEqual(published.map((definition) => definition.type));
    expect(schemas.webhook_test?.title).toBe('webhook_test');
  });

  it('includes a host’s own types from --events', async () => {
    const run = await runBin(['schema', 'job_fulfilment_started', '--events', HOST_EVENTS]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      title: 'job_fulfilment_started',
      properties: { metadata: { required: ['fulfilmentId', 'jobId', 'startedAt'] } },
    });
  });

  it('refuses an events module that exports no catalogue, or that does not load, with exit 2', async () => {
    const wrong = await runBin(['schema', '--events', tempFile('events.mjs', 'export const events = 42;\n')]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('exports no event catalogue');
    const missing = await runBin(['schema', '--events', './no-such-module.mjs']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Cannot load the events module ./no-such-module.mjs');
  });
});
