/** Names shared by the functions' EMF metrics (src/http/metrics.ts) and the dashboard (lib/constructs/monitoring.ts). */
export const METRICS_NAMESPACE = 'HrApi';

/** The route group of requests no route matched (the $default fallback). */
export const UNMATCHED_ROUTE_GROUP = 'Unmatched';
