import { toStandardSecret } from '@svc/webhooks-verify';
import type { WebhookConfig, WebhookConfigRecord } from '../config/config';
import { maskSigningSecret } from '../config/secret';
import { hasActiveKey, sendsStandard, toSigningPublicKeys } from '../config/signing-keys';

/**
 * The configuration as the API shows it at `now`. `revealSecret` (create and
 * rotate only) shows the secret in full, and its `whsec_` form beside it when
 * the scheme sends Standard Webhooks; otherwise the secret is masked and the
 * `whsec_` form absent. Private keys are never read.
 */
export function toConfigView(config: WebhookConfigRecord, revealSecret: boolean, now: number): WebhookConfig {
  const view: WebhookConfig = {
    id: config.id,
    webhookUrl: config.webhookUrl,
    signingSecret: revealSecret ? config.signingSecret : maskSigningSecret(config.signingSecret),
    enabled: config.enabled,
    subscribedEventTypes: [...config.subscribedEventTypes],
    signatureScheme: config.signatureScheme,
    asymmetricSignatures: hasActiveKey(config.signingKeys),
    signingPublicKeys: toSigningPublicKeys(config.signingKeys, now),
  };
  const standard = standardSecretShown(config, revealSecret);
  return standard === undefined ? view : { ...view, standardSigningSecret: standard };
}

/** The secret's `whsec_` form where the full secret is shown under a Standard Webhooks scheme. */
export function standardSecretShown(config: WebhookConfigRecord, revealSecret: boolean): string | undefined {
  return revealSecret && sendsStandard(config.signatureScheme)
    ? toStandardSecret(config.signingSecret)
    : undefined;
}
