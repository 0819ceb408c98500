import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { FALLBACK_ROUTE, ROUTES } from '../../src/http/routes';
import { METRICS_NAMESPACE, RATE_LIMITED_METRIC, UNMATCHED_ROUTE_GROUP } from '../../src/http/metric-names';

/** Every alarm looks at 5-minute periods. */
export const ALARM_PERIOD = Duration.minutes(5);

/** Alarm thresholds, each with the reason for its value. */
export const THRESHOLDS = {
  /** Any unhandled error or timeout is a bug or an outage: the handlers map every expected failure to a response. */
  functionErrors: 1,
  /** Any Lambda throttle means requests were refused for lack of concurrency. */
  functionThrottles: 1,
  /** p99 at 80 % of the timeout: DynamoDB retries should end in a 503 after 5 s, so this means requests are about to be cut off. */
  functionP99DurationShareOfTimeout: 0.8,
  /** A read is 2 round trips and a write 3 (~tens of ms): a p99 above 2.5 s means retries, backoff or cold starts are the norm. */
  apiP99LatencyMs: 2500,
  /** Latency alarms need 3 periods in a row: one deploy's cold starts must not page anyone. */
  latencyEvaluationPeriods: 3,
  /** More than 1 % of requests answered 5xx: clients see failures, not a single unlucky request. */
  api5xxRatePercent: 1,
  /** Any throttled DynamoDB request: on-demand tables throttle only on hot partitions or account limits. */
  tableThrottles: 1,
  /** Any DynamoDB system error is AWS-side trouble worth knowing about while it lasts. */
  tableSystemErrors: 1,
  /** Creates of one business contend on its list counters and retry; 50 conflicts in 5 minutes means 503s are near. */
  transactionConflicts: 50,
  /**
   * 429 rate_limited answers in 5 minutes over all businesses: a client that ignores Retry-After (a runaway sync,
   * a leaked token). The dashboard's top talkers name the business.
   */
  rateLimited: 1000,
} as const;

/** The DynamoDB operations the functions use (TABLE_GRANTS in src/http/grants.ts); alarms watch exactly these. */
const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
];

const alarmProps = {
  evaluationPeriods: 1,
  comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
} as const;

/** The per-function alarms: errors, throttles, p99 duration near the timeout. */
export function functionAlarms(scope: Construct, fn: lambda.IFunction, timeout: Duration, label: string) {
  const durationThreshold = Math.round(timeout.toMilliseconds() * THRESHOLDS.functionP99DurationShareOfTimeout);
  return {
    errors: new cloudwatch.Alarm(scope, 'ErrorsAlarm', {
      ...alarmProps,
      alarmDescription: `Unhandled errors or timeouts in ${label}`,
      metric: fn.metricErrors({ period: ALARM_PERIOD, statistic: 'Sum' }),
      threshold: THRESHOLDS.functionErrors,
    }),
    throttles: new cloudwatch.Alarm(scope, 'ThrottlesAlarm', {
      ...alarmProps,
      alarmDescription: `Lambda throttles (concurrency limit) in ${label}`,
      metric: fn.metricThrottles({ period: ALARM_PERIOD, statistic: 'Sum' }),
      threshold: THRESHOLDS.functionThrottles,
    }),
    duration: new cloudwatch.Alarm(scope, 'DurationAlarm', {
      ...alarmProps,
      alarmDescription: `p99 duration above ${durationThreshold} ms (timeout ${timeout.toMilliseconds()} ms) in ${label}`,
      metric: fn.metricDuration({ period: ALARM_PERIOD, statistic: 'p99' }),
      threshold: durationThreshold,
      evaluationPeriods: THRESHOLDS.latencyEvaluationPeriods,
    }),
  };
}

export interface ServiceMonitoringProps {
  readonly api: apigw.HttpApi;
  readonly table: dynamodb.Table;
  /** By function name (route names and the fallback). */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  readonly serviceName: string;
  readonly stage: string;
}

/**
 * The service-wide alarms (API 5xx rate and p99 latency, DynamoDB throttles,
 * system errors and transaction conflicts) and the one dashboard: API,
 * route groups, functions, table.
 */
export class ServiceMonitoring extends Construct {
  readonly alarms: cloudwatch.Alarm[];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ServiceMonitoringProps) {
    super(scope, id);
    const { api, table } = props;
    const period = ALARM_PERIOD;
    const sum = { period, statistic: 'Sum' } as const;

    const serverErrorRate = new cloudwatch.MathExpression({
      label: '5xx rate (%)',
      expression: '100 * errors / requests',
      usingMetrics: { errors: api.metricServerError(sum), requests: api.metricCount(sum) },
      period,
    });
    const throttledRequests = table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, ...sum });
    const throttleEvents = new cloudwatch.MathExpression({
      label: 'Read + write throttle events',
      expression: 'reads + writes',
      usingMetrics: {
        reads: table.metric('ReadThrottleEvents', sum),
        writes: table.metric('WriteThrottleEvents', sum),
      },
      period,
    });
    const systemErrors = table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, ...sum });
    const conflicts = table.metric('TransactionConflict', sum);
    const rateLimited = new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: RATE_LIMITED_METRIC,
      dimensionsMap: { service: props.serviceName },
      ...sum,
    });

    this.alarms = [
      new cloudwatch.Alarm(this, 'Api5xxRateAlarm', {
        ...alarmProps,
        alarmDescription: `More than ${THRESHOLDS.api5xxRatePercent}% of API requests answered 5xx in 5 minutes`,
        metric: serverErrorRate,
        threshold: THRESHOLDS.api5xxRatePercent,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
      new cloudwatch.Alarm(this, 'ApiP99LatencyAlarm', {
        ...alarmProps,
        alarmDescription: `API p99 latency above ${THRESHOLDS.apiP99LatencyMs} ms for ${THRESHOLDS.latencyEvaluationPeriods} x 5 minutes`,
        metric: api.metricLatency({ period, statistic: 'p99' }),
        threshold: THRESHOLDS.apiP99LatencyMs,
        evaluationPeriods: THRESHOLDS.latencyEvaluationPeriods,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
      new cloudwatch.Alarm(this, 'TableThrottlesAlarm', {
        ...alarmProps,
        alarmDescription: 'DynamoDB throttled requests on the table (hot partition or account limits)',
        metric: throttledRequests,
        threshold: THRESHOLDS.tableThrottles,
      }),
      new cloudwatch.Alarm(this, 'TableThrottleEventsAlarm', {
        ...alarmProps,
        alarmDescription: 'DynamoDB read or write throttle events on the table',
        metric: throttleEvents,
        threshold: THRESHOLDS.tableThrottles,
      }),
      new cloudwatch.Alarm(this, 'TableSystemErrorsAlarm', {
        ...alarmProps,
        alarmDescription: 'DynamoDB system errors (HTTP 500 from the service) on the table',
        metric: systemErrors,
        threshold: THRESHOLDS.tableSystemErrors,
      }),
      new cloudwatch.Alarm(this, 'RateLimitedAlarm', {
        ...alarmProps,
        alarmDescription: `At least ${THRESHOLDS.rateLimited} requests refused with 429 rate_limited in 5 minutes (see the dashboard's top talkers)`,
        metric: rateLimited,
        threshold: THRESHOLDS.rateLimited,
      }),
      new cloudwatch.Alarm(this, 'TableTransactionConflictsAlarm', {
        ...alarmProps,
        alarmDescription: `At least ${THRESHOLDS.transactionConflicts} DynamoDB transaction conflicts in 5 minutes (writers contending on list counters)`,
        metric: conflicts,
        threshold: THRESHOLDS.transactionConflicts,
      }),
    ];

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${props.serviceName}-${props.stage}`,
      defaultInterval: Duration.hours(3),
    });
    const graph = (title: string, left: cloudwatch.IMetric[], width = 8): cloudwatch.GraphWidget =>
      new cloudwatch.GraphWidget({ title, left, width, height: 6 });
    const minute = Duration.minutes(1);

    // The API as clients see it.
    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: `# ${props.serviceName} (${props.stage})\nAPI, route groups (Powertools metrics, namespace ${METRICS_NAMESPACE}), functions, table. Runbook: docs/deploy.md.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph('API requests', [api.metricCount({ period: minute, statistic: 'Sum', label: 'requests' })]),
      graph('API 4xx / 5xx', [
        api.metricClientError({ period: minute, statistic: 'Sum', label: '4xx' }),
        api.metricServerError({ period: minute, statistic: 'Sum', label: '5xx' }),
      ]),
      graph('API latency p50 / p99 (ms)', [
        api.metricLatency({ period: minute, statistic: 'p50', label: 'p50' }),
        api.metricLatency({ period: minute, statistic: 'p99', label: 'p99' }),
      ]),
    );

    // Per route group (the tags of the route table), from the functions' EMF metrics.
    const groups = new Map<string, string[]>();
    for (const route of ROUTES) groups.set(route.tag, [...(groups.get(route.tag) ?? []), route.name]);
    groups.set(UNMATCHED_ROUTE_GROUP, [FALLBACK_ROUTE.name]);
    const requests = (route: string, statusClass: string): cloudwatch.Metric =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'Requests',
        dimensionsMap: { service: props.serviceName, route, status_class: statusClass },
        period: minute,
        statistic: 'Sum',
      });
    // Metric ids must be unique within one graph: `id` keeps the three sums apart.
    const classSum = (id: string, routes: string[], classes: string[], label: string): cloudwatch.MathExpression => {
      const usingMetrics: Record<string, cloudwatch.IMetric> = {};
      routes.forEach((route, r) => classes.forEach((c, k) => (usingMetrics[`${id}${r}x${k}`] = requests(route, c))));
      return new cloudwatch.MathExpression({
        expression: Object.keys(usingMetrics).join(' + '),
        usingMetrics,
        label,
        period: minute,
      });
    };
    for (const [group, routes] of groups) {
      const latency = (statistic: string): cloudwatch.Metric =>
        new cloudwatch.Metric({
          namespace: METRICS_NAMESPACE,
          metricName: 'Latency',
          dimensionsMap: { service: props.serviceName, route_group: group },
          period: minute,
          statistic,
          label: statistic,
        });
      this.dashboard.addWidgets(
        graph(
          `${group}: requests, 4xx, 5xx`,
          [
            classSum('all', routes, ['2xx', '3xx', '4xx', '5xx'], 'requests'),
            classSum('client', routes, ['4xx'], '4xx'),
            classSum('server', routes, ['5xx'], '5xx'),
          ],
          12,
        ),
        graph(`${group}: latency p50 / p99 (ms)`, [latency('p50'), latency('p99')], 12),
      );
    }

    // Functions: one line per function.
    const perFunction = (metric: (fn: lambda.IFunction, name: string) => cloudwatch.IMetric): cloudwatch.IMetric[] =>
      Object.entries(props.functions).map(([name, fn]) => metric(fn, name));
    this.dashboard.addWidgets(
      graph(
        'Function errors',
        perFunction((fn, label) => fn.metricErrors({ period: minute, statistic: 'Sum', label })),
        6,
      ),
      graph(
        'Function throttles',
        perFunction((fn, label) => fn.metricThrottles({ period: minute, statistic: 'Sum', label })),
        6,
      ),
      graph(
        'Function duration p99 (ms)',
        perFunction((fn, label) => fn.metricDuration({ period: minute, statistic: 'p99', label })),
        6,
      ),
      graph(
        'Function concurrency (max)',
        perFunction((fn, label) => fn.metric('ConcurrentExecutions', { period: minute, statistic: 'Maximum', label })),
        6,
      ),
    );

    // Rate limits (contract §18): 429s over time, and the businesses that get the most (Metrics Insights).
    this.dashboard.addWidgets(
      graph('429 rate_limited (all businesses)', [
        new cloudwatch.Metric({
          namespace: METRICS_NAMESPACE,
          metricName: RATE_LIMITED_METRIC,
          dimensionsMap: { service: props.serviceName },
          period: minute,
          statistic: 'Sum',
          label: '429',
        }),
      ]),
      graph(
        '429 rate_limited: top 10 businesses',
        [
          new cloudwatch.MathExpression({
            label: '',
            expression: `SELECT SUM(${RATE_LIMITED_METRIC}) FROM SCHEMA("${METRICS_NAMESPACE}", business_id, service) GROUP BY business_id ORDER BY SUM() DESC LIMIT 10`,
            period: minute,
          }),
        ],
        16,
      ),
    );

    // The table.
    this.dashboard.addWidgets(
      graph('Table consumed capacity (units)', [
        table.metricConsumedReadCapacityUnits({ period: minute, statistic: 'Sum', label: 'read' }),
        table.metricConsumedWriteCapacityUnits({ period: minute, statistic: 'Sum', label: 'write' }),
      ]),
      graph('Table throttles', [
        table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: minute, statistic: 'Sum' }),
        table.metric('ReadThrottleEvents', { period: minute, statistic: 'Sum', label: 'read throttle events' }),
        table.metric('WriteThrottleEvents', { period: minute, statistic: 'Sum', label: 'write throttle events' }),
      ]),
      graph('Table transaction conflicts, system errors', [
        table.metric('TransactionConflict', { period: minute, statistic: 'Sum', label: 'transaction conflicts' }),
        table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: minute, statistic: 'Sum' }),
      ]),
    );
  }
}
