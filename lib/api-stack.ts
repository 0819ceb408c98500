import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  Aws,
  CfnOutput,
  type CfnResource,
  Duration,
  RemovalPolicy,
  Stack,
  Tags,
  Validations,
  type StackProps,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as guardduty from 'aws-cdk-lib/aws-guardduty';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct, IConstruct } from 'constructs';
import { ApiFunction } from './constructs/api-function';
import { createSingleTable } from './constructs/single-table';
import { ServiceMonitoring } from './constructs/monitoring';
import { SCAN_RESULT_DETAIL_TYPE, STORED_PREFIX, UPLOAD_PREFIX } from '../src/domain/attachments';
import {
  IMPORT_RESULTS_PREFIX,
  IMPORT_RUN_TIMEOUT_MS,
  IMPORT_UPLOAD_PREFIX,
  RESULTS_TTL_MS,
} from '../src/domain/imports';
import {
  FAILED_CHECKS_METRIC,
  FAILED_IMPORTS_METRIC,
  METRICS_NAMESPACE,
  REJECTED_UPLOADS_METRIC,
  STALLED_IMPORTS_METRIC,
} from '../src/http/metric-names';
import { FALLBACK_ROUTE, ROUTES, type RouteDefinition, type RouteName } from '../src/http/routes';
import { BUCKET_GRANTS, TABLE_GRANTS, WORKER_GRANTS, RATE_COUNT_GRANT, type TableGrant } from '../src/http/grants';
import { TABLE } from '../src/data/dynamo/table-definition';
import { RATE_PREFIX } from '../src/data/dynamo/keys';

/** The repository root (this file lives in lib/). */
export const REPO_ROOT = path.resolve(__dirname, '..');

/** Where the handlers live: one `functions/<name>.ts` per route row. */
export const DEFAULT_FUNCTIONS_DIR = path.join(REPO_ROOT, 'functions');

/**
 * /docs renders with the Redoc bundle (1 MB of JavaScript served as text);
 * esbuild cannot inline a file as text for one function only, so the file is
 * copied next to the handler, where src/openapi/docs-page.ts reads it.
 */
const shipNextToHandler = (files: readonly string[]) => ({
  beforeBundling: (): string[] => [],
  beforeInstall: (): string[] => [],
  afterBundling: (inputDir: string, outputDir: string): string[] =>
    files.map((file) => `cp "${inputDir}/node_modules/${file}" "${outputDir}/${path.posix.basename(file)}"`),
});

export const handlerEntry = (functionsDir: string, name: string): string => path.join(functionsDir, `${name}.ts`);

/** Every function of the stack, by the name of its handler file in the functions folder. */
export const functionNames = (): string[] => [
  ...ROUTES.map((r) => r.name),
  FALLBACK_ROUTE.name,
  DISPATCHER.name,
  RETENTION_JOB.name,
  EFFECTIVE_JOB.name,
  CHECK_JOB.name,
  EXPORT_WORKER.name,
  IMPORT_WORKER.name,
];

export const SERVICE_NAME = 'hr-api';

/**
 * The webhook dispatcher (contract §14): not a route, its own function. It
 * reads subscriptions and the feed and moves subscription state; it never
 * creates or deletes items.
 */
export const DISPATCHER = {
  name: 'dispatch-webhooks',
  grant: WORKER_GRANTS['dispatch-webhooks'] satisfies TableGrant,
  /** Several deliveries of up to 10 s each per invocation; the code stops starting new ones 2 s before this. */
  timeout: Duration.seconds(120),
  /** The poll that finds subscriptions with entries to deliver and sends each one its lane message. */
  schedule: Duration.minutes(1),
  /**
   * Lane invocations at once (the SQS event source's maximum concurrency): with at most 20 subscriptions per
   * business, it takes this many receivers slow at the same time, from at least 5 businesses, before a lane
   * message of another subscription waits (docs/webhooks.md).
   */
  lanes: 100,
} as const;

/**
 * The retention job (contract §17): not a route, its own function, once a day.
 * It erases applications through the DELETE path (WORKER_GRANTS['apply-retention']:
 * no Scan; businesses come from the registry partition) and stops 30 s before
 * its timeout; the next day's run resumes where it stopped.
 */
export const RETENTION_JOB = {
  name: 'apply-retention',
  grant: WORKER_GRANTS['apply-retention'] satisfies TableGrant,
  /** The longest a Lambda may run: a large backlog is worked off in as few runs as possible. */
  timeout: Duration.minutes(15),
  /** Daily at 03:15 UTC, outside European office hours. */
  schedule: { minute: '15', hour: '3' },
} as const;

/**
 * The effective-date job (contract §26): not a route, its own function. Local midnights fall on a quarter hour of
 * UTC, so a run a minute after each quarter hour writes a business's day within minutes of its midnight
 * (functions/apply-effective-dates.ts); a business with nothing due costs its registry entry's share of one Query.
 */
export const EFFECTIVE_JOB = {
  name: 'apply-effective-dates',
  grant: WORKER_GRANTS['apply-effective-dates'] satisfies TableGrant,
  /** A day of many changes is worked off in few runs; a run stops 30 s before this and the next one goes on. */
  timeout: Duration.minutes(15),
  schedule: { minute: '1/15' },
} as const;

/**
 * The post-upload check (contract §19): not a route, its own function, run by
 * the attachments bucket's object-created events under the upload prefix.
 */
export const CHECK_JOB = {
  name: 'check-attachment',
  grant: WORKER_GRANTS['check-attachment'] satisfies TableGrant,
  /** A few S3 and DynamoDB calls per object (text files up to 20 MiB read whole). */
  timeout: Duration.seconds(60),
  /** Rejected uploads in ALARM_PERIOD that raise the alarm: one is a client's mistake, a run of them is not. */
  rejectedThreshold: 10,
  alarmPeriod: Duration.minutes(15),
} as const;

/**
 * The run of a bulk import (contract §22): not a route, its own function, run
 * by the attachments bucket's object-created events under `imports/uploads/`;
 * a run near its time limit stores its checkpoint and invokes the function
 * again (functions/run-import.ts).
 */
export const IMPORT_WORKER = {
  name: 'run-import',
  grant: WORKER_GRANTS['run-import'] satisfies TableGrant,
  /** The longest a Lambda may run: 100,000 rows are a few runs at most (the watchdog's stall time builds on it). */
  timeout: Duration.millis(IMPORT_RUN_TIMEOUT_MS),
  /** A streamed file, one row and one results part (5 MiB) at a time. */
  memorySize: 512,
  /** Imports that ended as failed in ALARM_PERIOD that raise the alarm: a file refused now and then is a client's. */
  failedThreshold: 3,
  alarmPeriod: Duration.hours(1),
  /** How often the watchdog looks for imports without progress (src/services/import-run.ts watchImports). */
  watchEvery: Duration.minutes(5),
} as const;

/** The bucket prefix of imports (upload files and results files). */
const IMPORT_PREFIX = 'imports/';

/** How cdk-nag spells the attachments bucket's ARN (built from its name, below) in a finding's id. */
export const attachmentsArnInFindings = (stage: string): string =>
  `arn:<AWS::Partition>:s3:::${SERVICE_NAME}-${stage.toLowerCase()}-attachments-<AWS::AccountId>-<AWS::Region>`;

/**
 * The export worker (contract §20): one run per queue message, resumed by the
 * next message when a run reaches its time limit (functions/run-export.ts).
 */
export const EXPORT_WORKER = {
  name: 'run-export',
  grant: WORKER_GRANTS['run-export'] satisfies TableGrant,
  /** 100,000 applications take about 2 minutes locally: most exports finish in one run. */
  timeout: Duration.minutes(15),
  /** Its 8 MiB part and a batch of records, with room (peak RSS measured by npm run bench: docs/benchmarks.md). */
  memorySize: 512,
} as const;

/** Routes that seal (create) or open (idempotent replay) webhook secrets. */
const SEALS_WEBHOOK_SECRETS = new Set(['create-webhook-subscription']);

/**
 * How long a warm function reuses a token lookup (contract §15): a warm
 * single-record read is one DynamoDB call; a revoked token stops working within
 * this time (expiry is exact). The local server leaves it unset (0, immediate).
 */
export const AUTH_CACHE_SECONDS = 60;
const needsToken = (name: string): boolean => ROUTES.some((r) => r.name === name && r.auth);

/** A function's DynamoDB statement: exactly its declared actions on the table ARN and its declared index ARNs. */
export function tableStatement(tableArn: string, grant: TableGrant): iam.PolicyStatement | undefined {
  if (grant.actions.length === 0) return undefined;
  return new iam.PolicyStatement({
    actions: grant.actions.map((action) => `dynamodb:${action}`),
    resources: [tableArn, ...grant.indexes.map((index) => `${tableArn}/index/${index}`)],
  });
}

/**
 * The rate count syncs of every function of a route with a token (contract §18,
 * RATE_COUNT_GRANT): UpdateItem of the items whose partition key starts with
 * `RATE#`, nothing else, so a GET route's function still cannot write a record.
 */
export const rateCountStatement = (tableArn: string): iam.PolicyStatement =>
  new iam.PolicyStatement({
    actions: RATE_COUNT_GRANT.actions.map((action) => `dynamodb:${action}`),
    resources: [tableArn],
    conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RATE_PREFIX}*`] } },
  });

/** The stage that needs no alarm email: the default, for trying things out. */
export const DEV_STAGE = 'dev';

/** A context value that stops the synth; bin/app.ts prints its message as one line. */
export class ContextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContextError';
  }
}

export interface ApiStackProps extends StackProps {
  /** Deployment stage (dev, staging, prod, ...): names the stack, the API and the dashboard and tags every resource. */
  readonly stage: string;
  /** Steady-state requests per second for the whole API (stage default route throttling). */
  readonly throttlingRateLimit: number;
  readonly throttlingBurstLimit: number;
  /** X-Ray active tracing on every function. */
  readonly tracing: boolean;
  /** Retention of every function's log group and of the access log. */
  readonly logRetentionDays: logs.RetentionDays;
  /** Email subscribed to the alarm topic; required for every stage but dev. */
  readonly alarmEmail?: string;
  /**
   * GuardDuty Malware Protection for S3 on the attachments bucket's uploads: an attachment stays `pending` until
   * the scan result arrives (docs/deploy.md). Billed per GB scanned, hence off unless asked for.
   */
  readonly malwareScan?: boolean;
  /** Directory of the handler files; defaults to `<repo>/functions`. Must be inside the repo. */
  readonly functionsDir?: string;
}

/** The stack's settings as CDK context keys (cdk.json, or `-c key=value`). */
export const CONTEXT_DEFAULTS = {
  stage: DEV_STAGE,
  throttlingRateLimit: 100,
  throttlingBurstLimit: 200,
  tracing: true,
  logRetentionDays: 30,
  malwareScan: false,
} as const;

const VALID_RETENTION_DAYS = new Set<number>(
  Object.values(logs.RetentionDays).filter((v): v is number => typeof v === 'number'),
);

function contextNumber(scope: IConstruct, key: string, fallback: number): number {
  const raw: unknown = scope.node.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new ContextError(`Context ${key} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}

function contextBoolean(scope: IConstruct, key: string, fallback: boolean): boolean {
  const raw: unknown = scope.node.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (typeof raw === 'boolean') return raw;
  const text = String(raw).toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  throw new ContextError(`Context ${key} must be true or false, got ${JSON.stringify(raw)}`);
}

/**
 * Reads the stack settings from CDK context (values given with `-c` arrive as
 * strings) and validates them, so a typo fails the synth instead of deploying.
 */
export function apiStackPropsFromContext(scope: IConstruct): ApiStackProps {
  const stageRaw: unknown = scope.node.tryGetContext('stage');
  const stage =
    stageRaw === undefined || stageRaw === null || stageRaw === '' ? CONTEXT_DEFAULTS.stage : String(stageRaw);
  if (!/^[A-Za-z][A-Za-z0-9-]{0,30}$/.test(stage)) {
    throw new ContextError(
      `Context stage must be letters, digits and dashes (starting with a letter), got ${JSON.stringify(stage)}`,
    );
  }
  const throttlingRateLimit = contextNumber(scope, 'throttlingRateLimit', CONTEXT_DEFAULTS.throttlingRateLimit);
  const throttlingBurstLimit = contextNumber(scope, 'throttlingBurstLimit', CONTEXT_DEFAULTS.throttlingBurstLimit);
  if (!Number.isInteger(throttlingBurstLimit))
    throw new ContextError(`Context throttlingBurstLimit must be an integer, got ${throttlingBurstLimit}`);
  const logRetentionDays = contextNumber(scope, 'logRetentionDays', CONTEXT_DEFAULTS.logRetentionDays);
  if (!VALID_RETENTION_DAYS.has(logRetentionDays)) {
    throw new ContextError(
      `Context logRetentionDays must be one of CloudWatch's retention values (${[...VALID_RETENTION_DAYS].sort((a, b) => a - b).join(', ')}), got ${logRetentionDays}`,
    );
  }
  const alarmEmailRaw: unknown = scope.node.tryGetContext('alarmEmail');
  const alarmEmail = alarmEmailRaw === undefined || alarmEmailRaw === null ? '' : String(alarmEmailRaw).trim();
  if (alarmEmail === '' && stage !== DEV_STAGE) {
    throw new ContextError(
      `Stage ${stage} needs an address for its alarms: add -c alarmEmail=ADDRESS (only stage ${DEV_STAGE} may go without alarmEmail)`,
    );
  }
  if (alarmEmail !== '' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new ContextError(`Context alarmEmail must be an email address, got ${JSON.stringify(alarmEmail)}`);
  }
  return {
    stage,
    throttlingRateLimit,
    throttlingBurstLimit,
    tracing: contextBoolean(scope, 'tracing', CONTEXT_DEFAULTS.tracing),
    logRetentionDays: logRetentionDays as logs.RetentionDays,
    malwareScan: contextBoolean(scope, 'malwareScan', CONTEXT_DEFAULTS.malwareScan),
    ...(alarmEmail !== '' ? { alarmEmail } : {}),
  };
}

/** One CloudWatch JSON access-log line per request (HTTP API $context variables). */
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  errorMessage: '$context.error.message',
});

/**
 * The whole service: the single DynamoDB table, one Lambda per route row behind
 * an HTTP API (plus the `$default` fallback), stage throttling, access logs,
 * alarms and a dashboard. Authentication happens inside the functions (bearer token looked up
 * in the table), so the API has no authorizer.
 */
export class ApiStack extends Stack {
  readonly table: dynamodb.Table;
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly alarmTopic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;
  readonly webhooks: { key: kms.Key; retryQueue: sqs.Queue; deadLetters: sqs.Queue; alarms: cloudwatch.Alarm[] };
  /** The attachments bucket, its access-log bucket and the alarm on rejected uploads (contract §19). */
  readonly attachments: {
    bucket: s3.Bucket;
    accessLogs: s3.Bucket;
    rejectedAlarm: cloudwatch.Alarm;
    /** Only with the malwareScan setting. */
    malwareScan?: { plan: guardduty.CfnMalwareProtectionPlan; role: iam.Role; rule: events.Rule };
  };
  /** The daily rule that invokes the retention job. */
  readonly retentionSchedule: events.Rule;
  /** The quarter-hourly rule that invokes the effective-date job. */
  readonly effectiveSchedule: events.Rule;
  /** Exports: their bucket, the queue of worker runs and its dead letters. */
  readonly exports: { bucket: s3.Bucket; queue: sqs.Queue; deadLetters: sqs.Queue };
  /** By route name, plus FALLBACK_ROUTE.name and the functions that are not routes (DISPATCHER.name, RETENTION_JOB.name, ...). */
  readonly functions: Readonly<Record<string, ApiFunction>>;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    Tags.of(this).add('service', SERVICE_NAME);
    Tags.of(this).add('stage', props.stage);

    const functionsDir = props.functionsDir ?? DEFAULT_FUNCTIONS_DIR;
    const missing = functionNames()
      .map((name) => handlerEntry(functionsDir, name))
      .filter((file) => !fs.existsSync(file));
    if (missing.length > 0) {
      throw new ContextError(`Missing handler files (one per route in src/http/routes.ts):\n  ${missing.join('\n  ')}`);
    }

    // ---- Table -----------------------------------------------------------
    this.table = createSingleTable(this, 'Table', TABLE);

    // ---- Alarm topic -------------------------------------------------------
    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      displayName: `${SERVICE_NAME} ${props.stage} alarms`,
      enforceSSL: true,
    });
    if (props.alarmEmail) this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const alarmAction = new cloudwatchActions.SnsAction(this.alarmTopic);

    // ---- Functions ---------------------------------------------------------
    const functions: Record<string, ApiFunction> = {};
    const makeFunction = (
      name: RouteName | typeof FALLBACK_ROUTE.name,
      description: string,
      bundleFiles: readonly string[] = [],
    ): ApiFunction => {
      const statement = tableStatement(this.table.tableArn, TABLE_GRANTS[name]);
      const fn = new ApiFunction(this, `Fn-${name}`, {
        entry: handlerEntry(functionsDir, name),
        projectRoot: REPO_ROOT,
        description,
        logRetention: props.logRetentionDays,
        tracing: props.tracing,
        alarmAction,
        environment: {
          POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
          ...(statement ? { TABLE_NAME: this.table.tableName } : {}),
          ...(needsToken(name) ? { AUTH_CACHE_SECONDS: String(AUTH_CACHE_SECONDS) } : {}),
        },
        ...(bundleFiles.length > 0 ? { commandHooks: shipNextToHandler(bundleFiles) } : {}),
      });
      // Exactly what the route's code path calls (TABLE_GRANTS in src/http/grants.ts): no index/*, no Scan.
      if (statement) fn.role.addToPrincipalPolicy(statement);
      if (needsToken(name)) fn.role.addToPrincipalPolicy(rateCountStatement(this.table.tableArn));
      functions[name] = fn;
      return fn;
    };

    const fallback = makeFunction(
      FALLBACK_ROUTE.name,
      `${SERVICE_NAME} ${FALLBACK_ROUTE.name}: $default (404/405 for unmatched requests)`,
    );

    // ---- HTTP API ----------------------------------------------------------
    this.api = new apigw.HttpApi(this, 'HttpApi', {
      apiName: `${SERVICE_NAME}-${props.stage}`,
      description: `HR API (${props.stage})`,
      // The stage is created below, with throttling and access logs.
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', fallback.function),
    });

    for (const route of ROUTES) {
      const fn = makeFunction(
        route.name,
        `${SERVICE_NAME} ${route.name}: ${route.method} ${route.path}`,
        (route as RouteDefinition).bundleFiles,
      );
      this.api.addRoutes({
        path: route.path,
        methods: [apigw.HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${route.name}-integration`, fn.function),
      });
    }
    this.webhooks = this.addWebhookDispatcher(props, alarmAction, functions);
    this.retentionSchedule = this.addRetentionJob(props, alarmAction, functions);
    this.effectiveSchedule = this.addEffectiveDateJob(props, alarmAction, functions);
    this.attachments = this.addAttachments(props, alarmAction, functions);
    this.exports = this.addExports(props, alarmAction, functions);
    this.functions = functions;

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetentionDays,
    });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.throttlingRateLimit, burstLimit: props.throttlingBurstLimit },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(ACCESS_LOG_FORMAT),
      },
    });

    // ---- Alarms and dashboard -------------------------------------------------
    const monitoring = new ServiceMonitoring(this, 'Monitoring', {
      api: this.api,
      table: this.table,
      functions: Object.fromEntries(Object.entries(functions).map(([name, fn]) => [name, fn.function])),
      serviceName: SERVICE_NAME,
      stage: props.stage,
    });
    for (const alarm of monitoring.alarms) alarm.addAlarmAction(alarmAction);
    this.dashboard = monitoring.dashboard;

    // ---- Outputs -----------------------------------------------------------
    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'DynamoDB table; TABLE_NAME for `npm run admin`',
    });
    new CfnOutput(this, 'AttachmentsBucket', {
      value: this.attachments.bucket.bucketName,
      description: 'S3 bucket of application attachments; ATTACHMENTS_BUCKET for `npm run admin -- retention run`',
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn, description: 'SNS topic of all alarms' });
    new CfnOutput(this, 'DashboardName', {
      value: this.dashboard.dashboardName,
      description: 'CloudWatch dashboard of the API, functions and table',
    });

    this.acknowledgeNagFindings();
  }

  /**
   * Webhooks: the KMS key that seals subscription secrets (granted to the
   * create route and the dispatcher only), the dispatcher Lambda on a schedule
   * (the poll) and on an SQS queue of lane messages, one subscription per
   * message and invocation, retries delayed (with a dead-letter queue), and
   * alarms on its backlog. Outbound calls time out after 10 s in the code.
   */
  private addWebhookDispatcher(
    props: ApiStackProps,
    alarmAction: cloudwatch.IAlarmAction,
    functions: Record<string, ApiFunction>,
  ): ApiStack['webhooks'] {
    const key = new kms.Key(this, 'WebhookSecretsKey', {
      description: `${SERVICE_NAME} ${props.stage}: seals webhook signing secrets`,
      enableKeyRotation: true,
    });
    const deadLetters = new sqs.Queue(this, 'WebhookRetryDeadLetters', {
      enforceSSL: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      retentionPeriod: Duration.days(14),
    });
    const retryQueue = new sqs.Queue(this, 'WebhookRetries', {
      enforceSSL: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      visibilityTimeout: Duration.seconds(DISPATCHER.timeout.toSeconds() * 6),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: 5 },
    });
    const dispatcher = new ApiFunction(this, `Fn-${DISPATCHER.name}`, {
      entry: handlerEntry(props.functionsDir ?? DEFAULT_FUNCTIONS_DIR, DISPATCHER.name),
      projectRoot: REPO_ROOT,
      description: `${SERVICE_NAME} ${DISPATCHER.name}: webhook deliveries from the change feed`,
      logRetention: props.logRetentionDays,
      tracing: props.tracing,
      alarmAction,
      timeout: DISPATCHER.timeout,
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        TABLE_NAME: this.table.tableName,
        WEBHOOK_KMS_KEY_ID: key.keyArn,
        WEBHOOK_RETRY_QUEUE_URL: retryQueue.queueUrl,
      },
    });
    const statement = tableStatement(this.table.tableArn, DISPATCHER.grant);
    if (statement) dispatcher.role.addToPrincipalPolicy(statement);
    key.grantDecrypt(dispatcher.function);
    retryQueue.grantSendMessages(dispatcher.function);
    // One subscription per invocation: a slow receiver holds its own lane only.
    dispatcher.function.addEventSource(
      new SqsEventSource(retryQueue, { batchSize: 1, maxConcurrency: DISPATCHER.lanes }),
    );
    new events.Rule(this, 'WebhookSchedule', {
      description: 'Webhook dispatcher: subscriptions that are due',
      schedule: events.Schedule.rate(DISPATCHER.schedule),
      targets: [new eventsTargets.LambdaFunction(dispatcher.function)],
    });
    for (const name of SEALS_WEBHOOK_SECRETS) {
      const fn = functions[name];
      if (!fn) continue;
      fn.function.addEnvironment('WEBHOOK_KMS_KEY_ID', key.keyArn);
      // Exactly Encrypt (seal) and Decrypt (idempotent replay); no ReEncrypt*/GenerateDataKey* wildcards.
      key.grant(fn.function, 'kms:Encrypt', 'kms:Decrypt');
    }
    functions[DISPATCHER.name] = dispatcher;

    const period = Duration.minutes(5);
    const alarms = [
      new cloudwatch.Alarm(this, 'WebhookDeadLettersAlarm', {
        alarmDescription: 'Webhook lane messages the dispatcher failed to process 5 times (dead-letter queue)',
        metric: deadLetters.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      new cloudwatch.Alarm(this, 'WebhookRetryBacklogAlarm', {
        alarmDescription:
          'A webhook lane message waited over 30 minutes past its delay (the dispatcher is not keeping up)',
        metric: retryQueue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
        // Messages carry at most a 15 min delay; older than that means they are not being consumed.
        threshold: 45 * 60,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    ];
    for (const alarm of alarms) alarm.addAlarmAction(alarmAction);
    return { key, retryQueue, deadLetters, alarms };
  }

  /**
   * The retention job (contract §17): erases applications past their business's retention, daily (a Duration alarm
   * here means a backlog larger than one run).
   */
  private addRetentionJob(
    props: ApiStackProps,
    alarmAction: cloudwatch.IAlarmAction,
    functions: Record<string, ApiFunction>,
  ): events.Rule {
    return this.addScheduledJob(props, alarmAction, functions, RETENTION_JOB, {
      purpose: "erases applications past their business's retention (daily)",
      ruleId: 'RetentionSchedule',
      ruleDescription: 'Retention job: erase applications past their business retention (contract §17)',
    });
  }

  /** The effective-date job (contract §26): employee changes that take effect at local midnight. */
  private addEffectiveDateJob(
    props: ApiStackProps,
    alarmAction: cloudwatch.IAlarmAction,
    functions: Record<string, ApiFunction>,
  ): events.Rule {
    return this.addScheduledJob(props, alarmAction, functions, EFFECTIVE_JOB, {
      purpose: 'employee changes that take effect at local midnight (every 15 minutes)',
      ruleId: 'EffectiveDateSchedule',
      ruleDescription: 'Effective-date job: employee changes at local midnight (contract §26)',
    });
  }

  /**
   * A scheduled job's function (Errors, Throttles and Duration alarms to the topic like every function; Errors: a
   * run failed), exactly its table grant, and its schedule. Invoked
   * asynchronously: a failed run is retried by Lambda (twice); each job's runs are safe to repeat and to overlap.
   */
  private addScheduledJob(
    props: ApiStackProps,
    alarmAction: cloudwatch.IAlarmAction,
    functions: Record<string, ApiFunction>,
    spec: typeof RETENTION_JOB | typeof EFFECTIVE_JOB,
    text: { purpose: string; ruleId: string; ruleDescription: string },
  ): events.Rule {
    const job = new ApiFunction(this, `Fn-${spec.name}`, {
      entry: handlerEntry(props.functionsDir ?? DEFAULT_FUNCTIONS_DIR, spec.name),
      projectRoot: REPO_ROOT,
      description: `${SERVICE_NAME} ${spec.name}: ${text.purpose}`,
      logRetention: props.logRetentionDays,
      tracing: props.tracing,
      alarmAction,
      timeout: spec.timeout,
      environment: { POWERTOOLS_SERVICE_NAME: SERVICE_NAME, TABLE_NAME: this.table.tableName },
    });
    const statement = tableStatement(this.table.tableArn, spec.grant);
    if (statement) job.role.addToPrincipalPolicy(statement);
    functions[spec.name] = job;
    return new events.Rule(this, text.ruleId, {
      description: text.ruleDescription,
      schedule: events.Schedule.cron(spec.schedule),
      targets: [new eventsTargets.LambdaFunction(job.function)],
    });
  }

  /**
   * The import run's function (contract §22) with its table grant, the
   * permission of the bucket to invoke it, its permission to invoke itself
   * (the next run of an import; a policy of its own, so the function does not
   * depend on it), and the alarm on failed imports. Its S3 actions come from
   * BUCKET_GRANTS like every other function's.
   */
  private addImportWorker(
    props: ApiStackProps,
    alarmAction: cloudwatch.IAlarmAction,
    functions: Record<string, ApiFunction>,
    bucketArn: string,
  ): { function: ApiFunction; invoke: lambda.CfnPermission } {
    const run = new ApiFunction(this, `Fn-${IMPORT_WORKER.name}`, {
      entry: handlerEntry(props.functionsDir ?? DEFAULT_FUNCTIONS_DIR, IMPORT_WORKER.name),
      projectRoot: REPO_ROOT,
      description: `${SERVICE_NAME} ${IMPORT_WORKER.name}: applies uploaded import files (contract §22)`,
      logRetention: props.logRetentionDays,
      tracing: props.tracing,
      alarmAction,
      timeout: IMPORT_WORKER.timeout,
      memorySize: IMPORT_WORKER.memorySize,
      environment: { POWERTOOLS_SERVICE_NAME: SERVICE_NAME, TABLE_NAME: this.table.tableName },
    });
    const statement = tableStatement(this.table.tableArn, IMPORT_WORKER.grant);
    if (statement) run.role.addToPrincipalPolicy(statement);
    functions[IMPORT_WORKER.name] = run;
    new iam.Policy(this, 'ImportRunInvokesNextRun', {
      roles: [run.role],
      statements: [
        new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [run.function.functionArn] }),
      ],
    });
    const invoke = new lambda.CfnPermission(this, 'ImportRunInvokedByBucket', {
      action: 'lambda:InvokeFunction',
      functionName: run.function.functionArn,
      principal: 's3.amazonaws.com',
      sourceAccount: Aws.ACCOUNT_ID,
      sourceArn: bucketArn,
    });
    const failedAlarm = new cloudwatch.Alarm(this, 'FailedImportsAlarm', {
      alarmDescription: `${IMPORT_WORKER.failedThreshold} or more imports failed (size_mismatch, not_utf8, malformed_file, too_many_rows, upload_expired, run_failed) within ${IMPORT_WORKER.alarmPeriod.toMinutes()} minutes: the run's log says which and why`,
      metric: new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: FAILED_IMPORTS_METRIC,
        dimensionsMap: { service: SERVICE_NAME },
        statistic: 'Sum',
        period: IMPORT_WORKER.alarmPeriod,
      }),
      threshold: IMPORT_WORKER.failedThreshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    failedAlarm.addAlarmAction(alarmAction);
    // The watchdog: imports whose progress stopped for longer than a run may take end as run_failed.
    new events.Rule(this, 'ImportWatchdogSchedule', {
      description: `Import watchdog: ends imports without progress for longer than a run's timeout plus a margin (contract §22)`,
      schedule: events.Schedule.rate(IMPORT_WORKER.watchEvery),
      // Invoked asynchronously: a failed round is retried by Lambda; rounds are safe to repeat.
      targets: [
        new eventsTargets.LambdaFunction(run.function, { event: events.RuleTargetInput.fromObject({ watch: true }) }),
      ],
    });
    const stalledAlarm = new cloudwatch.Alarm(this, 'StalledImportsAlarm', {
      alarmDescription:
        'An import ended as run_failed: its runs kept failing, or the watchdog found it without progress for longer than a run may take (the ERROR log line names it)',
      metric: new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: STALLED_IMPORTS_METRIC,
        dimensionsMap: { service: SERVICE_NAME },
        statistic: 'Sum',
        period: IMPORT_WORKER.watchEvery,
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    stalledAlarm.addAlarmAction(alarmAction);
    return { function: run, invoke };
  }

  /**
   * Attachments (contract §19): a private bucket (public access blocked,
   * encrypted, TLS only, owner-enforced objects), uploads that were never
   * checked expire after a day and unfinished multipart uploads are cleaned,
   * server access logs in a bucket of their own. Each function that touches
   * it gets exactly the actions of BUCKET_GRANTS on the prefix it uses; the
   * check function runs on object-created events under the upload prefix.
   */
  private addAttachments(
    props: ApiStackProps,
    alarmAction: cloudwatch.IAlarmAction,
    functions: Record<string, ApiFunction>,
  ): ApiStack['attachments'] {
    const accessLogs = new s3.Bucket(this, 'AttachmentsAccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Named up front, so the check's invoke permission can name the bucket without referring to it (S3 checks the
    // permission when the notification is created: the bucket depends on the permission, not the other way round).
    const bucketName = `${SERVICE_NAME}-${props.stage.toLowerCase()}-attachments-${Aws.ACCOUNT_ID}-${Aws.REGION}`;
    const bucketArn = `arn:${Aws.PARTITION}:s3:::${bucketName}`;
    const bucket = new s3.Bucket(this, 'Attachments', {
      bucketName,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'attachments/',
      // Career sites upload from the browser: the presigned POST is their only way in (the policy is the guard).
      cors: [
        {
          allowedMethods: [s3.HttpMethods.POST],
          allowedOrigins: ['*'],
          allowedHeaders: ['*'],
          maxAge: 3600,
        },
      ],
      lifecycleRules: [
        { id: 'expire-unchecked-uploads', prefix: UPLOAD_PREFIX, expiration: Duration.days(1) },
        // A run deletes its upload when the import ends; one never run (upload_expired) goes after two days.
        { id: 'expire-import-uploads', prefix: IMPORT_UPLOAD_PREFIX, expiration: Duration.days(2) },
        {
          id: 'expire-import-results',
          prefix: IMPORT_RESULTS_PREFIX,
          expiration: Duration.days(RESULTS_TTL_MS / 86_400_000),
        },
        { id: 'abort-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      // Applicants' files: never deleted with the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const check = new ApiFunction(this, `Fn-${CHECK_JOB.name}`, {
      entry: handlerEntry(props.functionsDir ?? DEFAULT_FUNCTIONS_DIR, CHECK_JOB.name),
      projectRoot: REPO_ROOT,
      description: `${SERVICE_NAME} ${CHECK_JOB.name}: checks uploaded attachments (size, type by signature)`,
      logRetention: props.logRetentionDays,
      tracing: props.tracing,
      alarmAction,
      timeout: CHECK_JOB.timeout,
      environment: { POWERTOOLS_SERVICE_NAME: SERVICE_NAME, TABLE_NAME: this.table.tableName },
    });
    const statement = tableStatement(this.table.tableArn, CHECK_JOB.grant);
    if (statement) check.role.addToPrincipalPolicy(statement);
    functions[CHECK_JOB.name] = check;
    // The notification as the bucket's own property: CDK's addEventNotification would add a helper function
    // (a custom resource with a managed policy) to set it.
    const invoke = new lambda.CfnPermission(this, 'CheckInvokedByBucket', {
      action: 'lambda:InvokeFunction',
      functionName: check.function.functionArn,
      principal: 's3.amazonaws.com',
      sourceAccount: Aws.ACCOUNT_ID,
      sourceArn: bucketArn,
    });
    const cfnBucket = bucket.node.defaultChild as s3.CfnBucket;
    const importRun = this.addImportWorker(props, alarmAction, functions, bucketArn);
    cfnBucket.notificationConfiguration = {
      lambdaConfigurations: [
        {
          event: 's3:ObjectCreated:*',
          function: check.function.functionArn,
          filter: { s3Key: { rules: [{ name: 'prefix', value: UPLOAD_PREFIX }] } },
        },
        {
          event: 's3:ObjectCreated:*',
          function: importRun.function.function.functionArn,
          filter: { s3Key: { rules: [{ name: 'prefix', value: IMPORT_UPLOAD_PREFIX }] } },
        },
      ],
      // GuardDuty turns this on itself when the plan is created; declared here so a stack update keeps it.
      ...(props.malwareScan ? { eventBridgeConfiguration: { eventBridgeEnabled: true } } : {}),
    };
    cfnBucket.addResourceDependency(invoke);
    cfnBucket.addResourceDependency(importRun.invoke);

    for (const [name, grant] of Object.entries(BUCKET_GRANTS)) {
      const fn = functions[name];
      if (!fn) throw new ContextError(`BUCKET_GRANTS names ${name}, which is no function of the stack`);
      fn.function.addEnvironment('ATTACHMENTS_BUCKET', bucketName);
      for (const [prefix, actions] of [
        [UPLOAD_PREFIX, grant.uploads ?? []],
        [STORED_PREFIX, grant.attachments ?? []],
        [IMPORT_PREFIX, grant.imports ?? []],
      ] as const) {
        if (actions.length === 0) continue;
        fn.role.addToPrincipalPolicy(
          // By name, not by reference: the bucket depends on the check function (its notification), whose role is here.
          new iam.PolicyStatement({ actions: [...actions], resources: [`${bucketArn}/${prefix}*`] }),
        );
      }
    }

    const rejectedAlarm = new cloudwatch.Alarm(this, 'RejectedUploadsAlarm', {
      alarmDescription: `${CHECK_JOB.rejectedThreshold} or more uploaded attachments rejected (size or type mismatch) within ${CHECK_JOB.alarmPeriod.toMinutes()} minutes: a broken client, or someone probing the upload`,
      metric: new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: REJECTED_UPLOADS_METRIC,
        dimensionsMap: { service: SERVICE_NAME },
        statistic: 'Sum',
        period: CHECK_JOB.alarmPeriod,
      }),
      threshold: CHECK_JOB.rejectedThreshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    rejectedAlarm.addAlarmAction(alarmAction);
    // Contract §19: a landed upload must not stay pending; one check that kept failing is one too many.
    new cloudwatch.Alarm(this, 'FailedAttachmentChecksAlarm', {
      alarmDescription:
        'An attachment check kept failing after its retries: the upload stays pending until a redelivery settles it (the ERROR log line names the key)',
      metric: new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: FAILED_CHECKS_METRIC,
        dimensionsMap: { service: SERVICE_NAME },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(alarmAction);

    for (const name of Object.keys(BUCKET_GRANTS)) {
      const grant = BUCKET_GRANTS[name as keyof typeof BUCKET_GRANTS]!;
      const fn = functions[name]!;
      for (const [prefix, actions] of [
        [UPLOAD_PREFIX, grant.uploads ?? []],
        [STORED_PREFIX, grant.attachments ?? []],
        [IMPORT_PREFIX, grant.imports ?? []],
      ] as const)
        if (actions.length > 0)
          Validations.of(fn).acknowledge({
            id: `AwsSolutions-IAM5[Resource::${attachmentsArnInFindings(props.stage)}/${prefix}*]`,
            reason:
              prefix === IMPORT_PREFIX
                ? `Objects are keyed per import (${IMPORT_UPLOAD_PREFIX}<business>/<id>, ${IMPORT_RESULTS_PREFIX}<business>/<id>.jsonl): the grant is the actions this function performs (BUCKET_GRANTS) on that prefix only, never the bucket.`
                : `Objects are keyed per attachment (${prefix}<business>/<application>/<id>): the grant is the actions this function performs (BUCKET_GRANTS) on that prefix only, never the bucket.`,
          });
    }
    Validations.of(accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This bucket receives the server access logs of the attachments bucket; logging it again would loop.',
    });
    const malwareScan = props.malwareScan ? this.addMalwareScan(props, bucket, bucketName, check) : undefined;
    return { bucket, accessLogs, rejectedAlarm, ...(malwareScan ? { malwareScan } : {}) };
  }

  /**
   * The malwareScan setting: GuardDuty Malware Protection for S3 scans every
   * object created under the upload prefix, with a role of the permissions
   * AWS documents for it (object reads under that prefix only, tagging left
   * out as no tags are written); its scan-result event for this bucket
   * invokes the check function, which (MALWARE_SCAN) leaves a file that
   * passes pending until then.
   */
  private addMalwareScan(
    props: ApiStackProps,
    bucket: s3.Bucket,
    bucketName: string,
    check: ApiFunction,
  ): NonNullable<ApiStack['attachments']['malwareScan']> {
    const bucketArn = `arn:${Aws.PARTITION}:s3:::${bucketName}`;
    const managedRule = `arn:${Aws.PARTITION}:events:${Aws.REGION}:${Aws.ACCOUNT_ID}:rule/DO-NOT-DELETE-AmazonGuardDutyMalwareProtectionS3*`;
    // Inline, so the plan (which refers to the role) is created only once the permissions exist.
    const role = new iam.Role(this, 'MalwareScanRole', {
      description: `${SERVICE_NAME} ${props.stage}: GuardDuty Malware Protection for the attachments bucket's uploads`,
      assumedBy: new iam.ServicePrincipal('malware-protection-plan.guardduty.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
      inlinePolicies: {
        scan: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({
              sid: 'AllowManagedRuleToSendS3EventsToGuardDuty',
              actions: ['events:PutRule', 'events:DeleteRule', 'events:PutTargets', 'events:RemoveTargets'],
              resources: [managedRule],
              conditions: { StringLike: { 'events:ManagedBy': 'malware-protection-plan.guardduty.amazonaws.com' } },
            }),
            new iam.PolicyStatement({
              sid: 'AllowGuardDutyToMonitorEventBridgeManagedRule',
              actions: ['events:DescribeRule', 'events:ListTargetsByRule'],
              resources: [managedRule],
            }),
            new iam.PolicyStatement({
              sid: 'AllowEnableS3EventBridgeEvents',
              actions: ['s3:PutBucketNotification', 's3:GetBucketNotification'],
              resources: [bucketArn],
            }),
            new iam.PolicyStatement({
              sid: 'AllowPutValidationObject',
              actions: ['s3:PutObject'],
              resources: [`${bucketArn}/malware-protection-resource-validation-object`],
            }),
            new iam.PolicyStatement({
              sid: 'AllowCheckBucketOwnership',
              actions: ['s3:ListBucket'],
              resources: [bucketArn],
            }),
            new iam.PolicyStatement({
              sid: 'AllowMalwareScan',
              actions: ['s3:GetObject', 's3:GetObjectVersion'],
              resources: [`${bucketArn}/${UPLOAD_PREFIX}*`],
            }),
          ],
        }),
      },
    });
    const plan = new guardduty.CfnMalwareProtectionPlan(this, 'MalwareProtectionPlan', {
      role: role.roleArn,
      protectedResource: { s3Bucket: { bucketName, objectPrefixes: [UPLOAD_PREFIX] } },
      actions: { tagging: { status: 'DISABLED' } },
    });
    plan.node.addDependency(bucket);

    const rule = new events.Rule(this, 'MalwareScanResultRule', {
      description: `${SERVICE_NAME} ${props.stage}: GuardDuty scan results for the attachments bucket settle pending attachments`,
      eventPattern: {
        source: ['aws.guardduty'],
        detailType: [SCAN_RESULT_DETAIL_TYPE],
        detail: { s3ObjectDetails: { bucketName: [bucketName] } },
      },
      targets: [new eventsTargets.LambdaFunction(check.function, { retryAttempts: 8 })],
    });
    check.function.addEnvironment('MALWARE_SCAN', 'true');

    Validations.of(role).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:events:<AWS::Region>:<AWS::AccountId>:rule/DO-NOT-DELETE-AmazonGuardDutyMalwareProtectionS3*]`,
        reason:
          "GuardDuty names the EventBridge rule it manages for the plan itself; AWS's documented policy matches it by this prefix (and events:ManagedBy).",
      },
      {
        id: `AwsSolutions-IAM5[Resource::${attachmentsArnInFindings(props.stage)}/${UPLOAD_PREFIX}*]`,
        reason: `GuardDuty reads each object created under ${UPLOAD_PREFIX} to scan it: reads on that prefix only, never the checked files.`,
      },
    );
    return { plan, role, rule };
  }

  /**
   * Exports (contract §20): a private bucket whose files expire after a day,
   * the queue of worker runs (dead letters after 5 failed receives, alarmed),
   * the worker, and exactly the S3/SQS actions each export function uses on
   * the `exports/` prefix.
   */
  private addExports(
    props: ApiStackProps,
    alarmAction: cloudwatch.IAlarmAction,
    functions: Record<string, ApiFunction>,
  ): ApiStack['exports'] {
    const bucket = new s3.Bucket(this, 'Exports', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        { id: 'expire-exports', expiration: Duration.days(1) },
        { id: 'abort-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    const deadLetters = new sqs.Queue(this, 'ExportRunDeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const queue = new sqs.Queue(this, 'ExportRuns', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(EXPORT_WORKER.timeout.toSeconds() * 6),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: 5 },
    });
    const worker = new ApiFunction(this, `Fn-${EXPORT_WORKER.name}`, {
      entry: handlerEntry(props.functionsDir ?? DEFAULT_FUNCTIONS_DIR, EXPORT_WORKER.name),
      projectRoot: REPO_ROOT,
      description: `${SERVICE_NAME} ${EXPORT_WORKER.name}: writes export files (contract §20)`,
      logRetention: props.logRetentionDays,
      tracing: props.tracing,
      alarmAction,
      timeout: EXPORT_WORKER.timeout,
      memorySize: EXPORT_WORKER.memorySize,
      environment: { POWERTOOLS_SERVICE_NAME: SERVICE_NAME, TABLE_NAME: this.table.tableName },
    });
    const statement = tableStatement(this.table.tableArn, EXPORT_WORKER.grant);
    if (statement) worker.role.addToPrincipalPolicy(statement);
    worker.function.addEventSource(new SqsEventSource(queue, { batchSize: 1 }));
    functions[EXPORT_WORKER.name] = worker;

    const files = bucket.arnForObjects('exports/*');
    const grants: Record<string, { s3: string[]; send: boolean }> = {
      // multipart upload: create/upload/complete are s3:PutObject; an export that failed aborts its upload
      [EXPORT_WORKER.name]: { s3: ['s3:PutObject', 's3:AbortMultipartUpload'], send: true },
      'create-export': { s3: [], send: true },
      // the presigned download URL is signed with this function's role; a stale export gets a new run
      'get-export': { s3: ['s3:GetObject'], send: true },
      // erasure wins over exports (contract §20): a completed file holding the applicant is deleted
      'delete-application': { s3: ['s3:DeleteObject'], send: false },
      'apply-retention': { s3: ['s3:DeleteObject'], send: false },
    };
    for (const [name, grant] of Object.entries(grants)) {
      const fn = functions[name];
      if (!fn) throw new ContextError(`exports grant names ${name}, which is no function of the stack`);
      fn.function.addEnvironment('EXPORTS_BUCKET', bucket.bucketName);
      if (grant.send) fn.function.addEnvironment('EXPORT_QUEUE_URL', queue.queueUrl);
      if (grant.s3.length)
        fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: grant.s3, resources: [files] }));
      if (grant.send) queue.grantSendMessages(fn.function);
    }
    new cloudwatch.Alarm(this, 'ExportDeadLettersAlarm', {
      alarmDescription: 'Export worker runs that failed 5 times (dead-letter queue): those exports stay running',
      metric: deadLetters.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(alarmAction);
    return { bucket, queue, deadLetters };
  }

  /**
   * cdk-nag (v3) AwsSolutions findings that are decisions, not oversights,
   * acknowledged with CDK's native Validations API. Findings of rules with
   * several findings per resource are acknowledged one by one (`Rule[finding]`).
   */
  private acknowledgeNagFindings(): void {
    for (const fn of Object.values(this.functions)) {
      Validations.of(fn).acknowledge(
        {
          id: 'AwsSolutions-L1',
          reason:
            'nodejs22.x is the pinned runtime (matching the esbuild target node22); a runtime upgrade is a tested change, not automatic.',
        },
        {
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason: 'X-Ray PutTraceSegments/PutTelemetryRecords (active tracing) only support Resource "*".',
        },
      );
    }
    const exportFiles = `AwsSolutions-IAM5[Resource::<${this.getLogicalId(this.exports.bucket.node.defaultChild as CfnResource)}.Arn>/exports/*]`;
    for (const name of [EXPORT_WORKER.name, 'get-export', 'delete-application', RETENTION_JOB.name])
      Validations.of(this.functions[name]!).acknowledge({
        id: exportFiles,
        reason:
          'Export files are named by business and export id at run time: the grant is the exports/ prefix of their own bucket.',
      });
    Validations.of(this.exports.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Export files live at most a day and are only read through presigned URLs the API hands to the token holder; the API logs every export request and download URL it issues.',
    });
    Validations.of(this.webhooks.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue of the webhook retry queue.',
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Authentication is a per-business bearer token checked inside every function (hash looked up in the table); only the OpenAPI document, its HTML rendering and the 404 fallback are public.',
    });
  }
}
