/**
 * The portal's place as the address's fragment carries it (`#view=deliveries&status=failed&delivery=…`),
 * so Reload and Back bring the agent back to the same tab, filters and open delivery. Only the keys
 * below are read or written; the fragment is never sent to a server.
 */

/** The delivery log's part: its filters (empty or missing means "any") and the delivery open, if any. */
export interface DeliveryRoute {
  filters: Readonly<Record<string, string>>;
  delivery: string | null;
}

/** Everything the fragment holds. */
export interface PortalRoute {
  view: string;
  deliveries: DeliveryRoute;
}

const VIEW_KEY = 'view';
const DELIVERY_KEY = 'delivery';

/** The keys of the delivery log's filters, in the order they are written. */
export const FILTER_KEYS = ['status', 'eventType', 'entityId', 'preset', 'since', 'until'] as const;

/** Reads a fragment (`#…`, with or without the hash); a missing view is null. */
export function parseRoute(hash: string): { view: string | null; deliveries: DeliveryRoute } {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const filters: Record<string, string> = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value) filters[key] = value;
  }
  return {
    view: params.get(VIEW_KEY),
    deliveries: { filters, delivery: params.get(DELIVERY_KEY) || null },
  };
}

/** The fragment of a route, `#` included; the delivery log's keys only while it is the view. */
export function formatRoute(route: PortalRoute): string {
  const params = new URLSearchParams({ [VIEW_KEY]: route.view });
  if (route.view === 'deliveries') {
    for (const key of FILTER_KEYS) {
      const value = route.deliveries.filters[key];
      if (value) params.set(key, value);
    }
    if (route.deliveries.delivery) params.set(DELIVERY_KEY, route.deliveries.delivery);
  }
  return `#${params.toString()}`;
}

/** Whether two delivery routes say the same. */
export function sameDeliveryRoute(a: DeliveryRoute, b: DeliveryRoute): boolean {
  return (
    a.delivery === b.delivery && FILTER_KEYS.every((key) => (a.filters[key] ?? '') === (b.filters[key] ?? ''))
  );
}

/** The route with no filter and no delivery open. */
export const EMPTY_DELIVERY_ROUTE: DeliveryRoute = { filters: {}, delivery: null };
