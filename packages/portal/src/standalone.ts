/*
 * The script of the standalone page (`createWebhooksPortal` in `@svc/webhooks-express`): the element with
 * Lit inlined, registered at once. A page whose element has `token-from-fragment` takes the token from
 * `#token=…` in its address (development and demos: the fragment is never sent to a server), then
 * removes it from the address bar.
 */
import { defineWebhooksPortal } from './define';

defineWebhooksPortal();

const TOKEN_PARAM = 'token';

for (const portal of document.querySelectorAll('svc-webhooks-portal[token-from-fragment]')) {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const token = fragment.get(TOKEN_PARAM);
  if (token) {
    (portal as HTMLElement & { token: string | null }).token = token;
    fragment.delete(TOKEN_PARAM);
    const rest = fragment.toString();
    history.replaceState(
      null,
      '',
      `${window.location.pathname}${window.location.search}${rest ? `#${rest}` : ''}`,
    );
  }
}
