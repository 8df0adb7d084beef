import { describe, expect, it } from 'vitest';
import type { UpsertConfigInput, WebhookStore } from '../adapters/store';
import type { WebhookConfigRecord } from '../config/config';
import { BASE_TIME, makeDeliveryId } from './delivery-record-builder';

function configInput(agencyId: string): UpsertConfigInput {
  return {
    agencyId,
    webhookUrl: `https://hooks.example.com/${encodeURIComponent(agencyId)}`,
    enabled: true,
    subscribedEventTypes: ['job_created'],
    now: BASE_TIME,
    newId: makeDeliveryId(),
    newSigningSecret: 'a'.repeat(64),
  };
}

/** Every page of `listConfigs`, `limit` at a time, with the page sizes seen. */
async function walk(
  store: WebhookStore,
  limit: number,
): Promise<{ ids: string[]; pages: number[]; records: WebhookConfigRecord[] }> {
  const records: WebhookConfigRecord[] = [];
  const pages: number[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await store.listConfigs({ after, limit });
    pages.push(page.length);
    records.push(...page);
    const last = page.at(-1);
    if (!last || page.length < limit) break;
    after = last.agencyId;
  }
  return { ids: records.map((record) => record.agencyId), pages, records };
}

/** `listConfigs`: every configuration, in pages, for maintenance walks (re-sealing secrets, health checks). */
export function describeConfigListCases(store: () => WebhookStore): void {
  describe('listing configurations', () => {
    it('an empty store lists nothing', async () => {
      expect(await store().listConfigs({ after: null, limit: 10 })).toEqual([]);
    });

    it('pages through every configuration once, ascending by agency id; a short page is the last', async () => {
      const agencyIds = Array.from({ length: 7 }, (_, index) => `agency-${index}`);
      for (const agencyId of [...agencyIds].reverse()) await store().upsertConfig(configInput(agencyId));
      const { ids, pages } = await walk(store(), 3);
      expect(ids).toEqual(agencyIds);
      expect(pages).toEqual([3, 3, 1]);
      expect((await walk(store(), 7)).pages, 'an exact multiple ends with an empty page').toEqual([7, 0]);
    });

    it('returns each configuration exactly as getConfig does', async () => {
      await store().upsertConfig(configInput('agency-a'));
      await store().upsertConfig(configInput('agency-b'));
      await store().setSigningSecret('agency-b', 'c'.repeat(64), BASE_TIME + 5_000);
      const listed = await store().listConfigs({ after: null, limit: 10 });
      expect(listed).toEqual([await store().getConfig('agency-a'), await store().getConfig('agency-b')]);
    });

    it('`after` need not be a stored agency id, and nothing sorts after the last', async () => {
      for (const agencyId of ['agency-a', 'agency-c', 'agency-e'])
        await store().upsertConfig(configInput(agencyId));
      const page = await store().listConfigs({ after: 'agency-b', limit: 10 });
      expect(page.map((config) => config.agencyId)).toEqual(['agency-c', 'agency-e']);
      expect(await store().listConfigs({ after: 'agency-e', limit: 10 })).toEqual([]);
    });

    it('orders by code point (UTF-8 bytes): upper case before lower, U+E000 before an emoji', async () => {
      const agencyIds = ['agency-\u{1F600}', 'agency-b', 'agency-\u{E000}', 'agency-B', 'agency-a'];
      for (const agencyId of agencyIds) await store().upsertConfig(configInput(agencyId));
      const { ids } = await walk(store(), 2);
      expect(ids).toEqual(['agency-B', 'agency-a', 'agency-b', 'agency-\u{E000}', 'agency-\u{1F600}']);
    });

    it('leaves out deleted configurations and lists one created again', async () => {
      for (const agencyId of ['agency-a', 'agency-b', 'agency-c'])
        await store().upsertConfig(configInput(agencyId));
      await store().deleteConfig('agency-b');
      await store().deleteConfig('agency-c');
      await store().upsertConfig(configInput('agency-c'));
      const { ids } = await walk(store(), 1);
      expect(ids).toEqual(['agency-a', 'agency-c']);
    });
  });
}
