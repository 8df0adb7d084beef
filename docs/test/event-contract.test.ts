import { createEventCatalogue } from '@svc/webhooks-core';
import { describe, expect, it } from 'vitest';
import { eventContractFiles, staleContractFiles } from './event-contract';

describe('the event contract’s generated files', () => {
  it('are what the built-in catalogue generates (run `pnpm events:generate` after changing an event)', () => {
    expect(staleContractFiles()).toEqual([]);
  });

  it('document every built-in event type and webhook_test on the events reference page', () => {
    const page =
      eventContractFiles().find((file) => file.path === 'docs/events-reference.md')?.contents ?? '';
    for (const type of [...createEventCatalogue().types, 'webhook_test']) {
      expect(page).toContain(`## \`${type}\``);
    }
  });
});
