import type { SignatureScheme } from '@svc/webhooks-core';

/** Whether deliveries carry the Standard Webhooks headers (`'standard'` or `'both'`), where v1a travels. */
export function includesStandard(scheme: SignatureScheme): boolean {
  return scheme !== 'service';
}
