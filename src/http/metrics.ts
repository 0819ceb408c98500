import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricsEnabled, serviceName } from '../data/config';

/**
 * Per-request EMF metrics (Powertools): Requests and Latency by route and
 * status class. Only inside Lambda, where CloudWatch turns the EMF log lines
 * into metrics; locally and in tests they would be noise on stdout.
 */
let metrics: Metrics | undefined;

export function recordRequest(route: string, status: number, startedAt: number): void {
  if (!metricsEnabled()) return;
  metrics ??= new Metrics({ namespace: 'HrApi', serviceName: serviceName() });
  metrics.addDimensions({ route, status_class: `${Math.floor(status / 100)}xx` });
  metrics.addMetric('Requests', MetricUnit.Count, 1);
  metrics.addMetric('Latency', MetricUnit.Milliseconds, Date.now() - startedAt);
  metrics.publishStoredMetrics();
}
