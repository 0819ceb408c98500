import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricsEnabled, serviceName } from '../data/config';
import { METRICS_NAMESPACE, UNMATCHED_ROUTE_GROUP } from './metric-names';
import { ROUTES } from './routes';

/**
 * Per-request EMF metrics (Powertools): Requests and Latency by route and
 * status class, and Latency by route group (the route table's tags), whose
 * percentiles the dashboard shows. Only inside Lambda, where CloudWatch turns
 * the EMF log lines into metrics; locally and in tests they would be noise on stdout.
 */
let metrics: Metrics | undefined;

const groupOf = (route: string): string => ROUTES.find((r) => r.name === route)?.tag ?? UNMATCHED_ROUTE_GROUP;

export function recordRequest(route: string, status: number, startedAt: number): void {
  if (!metricsEnabled()) return;
  metrics ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: serviceName() });
  const latency = Date.now() - startedAt;
  metrics.addDimensions({ route, status_class: `${Math.floor(status / 100)}xx` });
  metrics.addMetric('Requests', MetricUnit.Count, 1);
  metrics.addMetric('Latency', MetricUnit.Milliseconds, latency);
  metrics.publishStoredMetrics();
  // Percentiles do not add up across routes: the group's latency is a metric of its own.
  metrics.addDimensions({ route_group: groupOf(route) });
  metrics.addMetric('Latency', MetricUnit.Milliseconds, latency);
  metrics.publishStoredMetrics();
}
