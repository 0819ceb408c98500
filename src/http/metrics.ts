import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricsEnabled, serviceName } from '../data/config';
import {
  FAILED_CHECKS_METRIC,
  FAILED_IMPORTS_METRIC,
  METRICS_NAMESPACE,
  STALLED_IMPORTS_METRIC,
  RATE_LIMITED_METRIC,
  REJECTED_UPLOADS_METRIC,
  UNMATCHED_ROUTE_GROUP,
} from './metric-names';
import { ROUTES } from './routes';

/**
 * Per-request EMF metrics (Powertools): Requests and Latency by route and
 * status class, and Latency by route group (the route table's tags), whose
 * percentiles the dashboard shows. Only inside Lambda, where CloudWatch turns
 * the EMF log lines into metrics; locally and in tests they would be noise on stdout.
 */
let metrics: Metrics | undefined;

const groupOf = (route: string): string => ROUTES.find((r) => r.name === route)?.tag ?? UNMATCHED_ROUTE_GROUP;

/** Built on first use: never where metrics are off. */
const metricsOf = (): Metrics =>
  (metrics ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: serviceName() }));

/** A 429 rate_limited: counted per business (top talkers) and for the service (alarm). */
export function recordRateLimited(businessId: string): void {
  if (!metricsEnabled()) return;
  const m = metricsOf();
  m.addMetric(RATE_LIMITED_METRIC, MetricUnit.Count, 1);
  m.publishStoredMetrics();
  m.addDimensions({ business_id: businessId });
  m.addMetric(RATE_LIMITED_METRIC, MetricUnit.Count, 1);
  m.publishStoredMetrics();
}

export function recordRequest(route: string, status: number, startedAt: number): void {
  if (!metricsEnabled()) return;
  const m = metricsOf();
  const latency = Date.now() - startedAt;
  m.addDimensions({ route, status_class: `${Math.floor(status / 100)}xx` });
  m.addMetric('Requests', MetricUnit.Count, 1);
  m.addMetric('Latency', MetricUnit.Milliseconds, latency);
  m.publishStoredMetrics();
  // Percentiles do not add up across routes: the group's latency is a metric of its own.
  m.addDimensions({ route_group: groupOf(route) });
  m.addMetric('Latency', MetricUnit.Milliseconds, latency);
  m.publishStoredMetrics();
}

/** One import that ended as failed (contract §22): the alarm on failed imports counts these (the log says why). */
export function recordFailedImport(): void {
  if (!metricsEnabled()) return;
  const m = metricsOf();
  m.addMetric(FAILED_IMPORTS_METRIC, MetricUnit.Count, 1);
  m.publishStoredMetrics();
}

/** One import ended as run_failed (its runs kept failing, or no progress): the alarm on stalled imports counts these. */
export function recordStalledImport(): void {
  if (!metricsEnabled()) return;
  const m = metricsOf();
  m.addMetric(STALLED_IMPORTS_METRIC, MetricUnit.Count, 1);
  m.publishStoredMetrics();
}

/** One checked upload that was rejected (contract §19): the alarm on rejected uploads counts these (the log says why). */
export function recordRejectedUpload(): void {
  if (!metricsEnabled()) return;
  const m = metricsOf();
  m.addMetric(REJECTED_UPLOADS_METRIC, MetricUnit.Count, 1);
  m.publishStoredMetrics();
}

/** One upload whose check kept failing (contract §19: it must not stay pending): the alarm on failed checks counts these. */
export function recordFailedCheck(): void {
  if (!metricsEnabled()) return;
  const m = metricsOf();
  m.addMetric(FAILED_CHECKS_METRIC, MetricUnit.Count, 1);
  m.publishStoredMetrics();
}
