/** What a sign-in hook needs of `<svc-webhooks-portal>`: its token and its events. */
export interface PortalSession {
  token?: string | undefined;
  addEventListener(type: 'unauthorized', listener: () => void): void;
}

/**
 * Signs the agent in again when the portal's token is refused: the portal fires
 * `unauthorized` once per token and shows "Please sign in again" until it gets a new one.
 * In the page: `renewTokenOnUnauthorized(document.querySelector('svc-webhooks-portal'), signInAgain)`.
 */
export function renewTokenOnUnauthorized(portal: PortalSession, signInAgain: () => Promise<string>): void {
  portal.addEventListener('unauthorized', async () => {
    portal.token = await signInAgain(); // your own sign-in: a popup, or a token refresh
  });
}
