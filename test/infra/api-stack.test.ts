/**
 * The deployed shape of the service, asserted on the synthesized template.
 * Bundling is skipped ('aws:cdk:bundling-stacks': []) and the handlers are
 * one-line stubs in a temporary directory, so this needs neither esbuild runs
 * nor the real functions/ files; the stack is synthesized once for the file.
 * CDK's built-in CloudFormation validation (a WebAssembly linter whose first run
 * costs seconds of CPU per process) runs on one synth only: the malware-scan
 * variant, whose template holds every resource of the default one and more.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { App, CfnResource, TagManager, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import {
  ApiStack,
  CHECK_JOB,
  attachmentsArnInFindings,
  DEFAULT_FUNCTIONS_DIR,
  DISPATCHER,
  REPO_ROOT,
  RETENTION_JOB,
  EFFECTIVE_JOB,
  EXPORT_WORKER,
  IMPORT_WORKER,
  apiStackPropsFromContext,
  handlerEntry,
} from '../../lib/api-stack';
import { FALLBACK_ROUTE, ROUTES } from '../../src/http/routes';
import { IMPORT_RUN_TIMEOUT_MS, IMPORT_STALL_MS } from '../../src/domain/imports';
import { BUCKET_GRANTS, TABLE_GRANTS } from '../../src/http/grants';
import { THRESHOLDS } from '../../lib/constructs/monitoring';
import { TABLE, projectionOf } from '../../src/data/dynamo/table-definition';

// That linter (@aws/cloudformation-validate) runs once: V8's baseline WebAssembly compiler alone does it for less
// CPU than with the optimizing tier, whose background compiles do not pay back within one run (this file, alone,
// three alternations on the 2-core dev VM, 2026-12-08: 12.3-13.6 CPU s with the tier, 9.8-10.8 without). The same
// code runs either way; the flag holds for what this jest worker compiles later, none of which is WebAssembly.
setFlagsFromString('--liftoff-only');

// Template JSON is untyped; the assertions below pin down its shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
type Resource = {
  Type: string;
  Properties: Record<string, Json>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};

const ALARM_EMAIL = 'oncall@example.com';
const CONTEXT = {
  'aws:cdk:bundling-stacks': [],
  stage: 'prod',
  alarmEmail: ALARM_EMAIL,
  throttlingRateLimit: 37,
  throttlingBurstLimit: 74,
  tracing: true,
  logRetentionDays: 14,
};

const ALL_FUNCTIONS = [
  ...ROUTES.map((r) => ({ name: r.name as string, access: r.access as string })),
  FALLBACK_ROUTE,
  { name: DISPATCHER.name, access: 'dispatcher' },
  { name: RETENTION_JOB.name, access: 'retention' },
  { name: EFFECTIVE_JOB.name, access: 'effective' },
  { name: CHECK_JOB.name, access: 'check' },
  { name: EXPORT_WORKER.name, access: 'export-worker' },
  { name: IMPORT_WORKER.name, access: 'import-worker' },
];
/** Timeout in seconds per function: 10 for routes. */
const timeoutOf = (name: string): number =>
  name === DISPATCHER.name
    ? 120
    : name === RETENTION_JOB.name ||
        name === EFFECTIVE_JOB.name ||
        name === EXPORT_WORKER.name ||
        name === IMPORT_WORKER.name
      ? 900
      : name === CHECK_JOB.name
        ? 60
        : 10;
const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:PartiQLInsert',
  'dynamodb:PartiQLUpdate',
  'dynamodb:PartiQLDelete',
];

let stubDir: string;
let stack: ApiStack;
let template: Template;
let resources: Record<string, Resource>;
let tableId: string;

const ofType = (type: string): [string, Resource][] => Object.entries(resources).filter(([, r]) => r.Type === type);
const functionId = (name: string): string =>
  stack.getLogicalId(stack.functions[name]!.function.node.defaultChild as CfnFunction);
const roleId = (name: string): string => stack.getLogicalId(stack.functions[name]!.role.node.defaultChild as CfnRole);
const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

/** Every statement of every policy attached to a function's role. */
function statementsOf(name: string): {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
  Condition?: unknown;
}[] {
  const role = roleId(name);
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => asArray(p.Properties.Roles).some((r: { Ref?: string }) => r.Ref === role))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}
/** Actions on the table's items in general (the rate count statement, limited to `RATE#` keys, apart). */
const dynamoActionsOf = (name: string): string[] =>
  statementsOf(name)
    .filter((s) => !s.Condition)
    .flatMap((s) => asArray(s.Action))
    .filter((a) => a.startsWith('dynamodb:'));

beforeAll(() => {
  // Entries must exist (NodejsFunction checks) and lie inside the project root; .cache/ is git-ignored.
  fs.mkdirSync(path.join(REPO_ROOT, '.cache'), { recursive: true });
  stubDir = fs.mkdtempSync(path.join(REPO_ROOT, '.cache', 'infra-test-handlers-'));
  for (const { name } of ALL_FUNCTIONS)
    fs.writeFileSync(handlerEntry(stubDir, name), 'export const handler = async () => ({});\n');

  const app = new App({ context: CONTEXT, builtinCloudFormationValidation: false });
  stack = new ApiStack(app, 'HrApi-prod', { ...apiStackPropsFromContext(app), functionsDir: stubDir });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
  tableId = stack.getLogicalId(stack.table.node.defaultChild as CfnResource);
});

afterAll(() => {
  if (stubDir) fs.rmSync(stubDir, { recursive: true, force: true });
});

describe('functions', () => {
  test('one Lambda function per route row plus the fallback, the webhook dispatcher and the retention job, and no other (no CDK helper functions)', () => {
    expect(ofType('AWS::Lambda::Function')).toHaveLength(ROUTES.length + 7);
    for (const { name } of ALL_FUNCTIONS) {
      const fn = resources[functionId(name)];
      expect(fn?.Type).toBe('AWS::Lambda::Function');
      expect(fn?.Properties.Handler).toBe('index.handler');
      expect(fn?.Properties.Description).toContain(name);
    }
  });

  test('handlers are functions/<name>.ts at the repository root by default', () => {
    expect(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).name).toBe('hr-api');
    expect(DEFAULT_FUNCTIONS_DIR).toBe(path.join(REPO_ROOT, 'functions'));
    expect(handlerEntry(DEFAULT_FUNCTIONS_DIR, 'get-employee')).toBe(
      path.join(REPO_ROOT, 'functions', 'get-employee.ts'),
    );
  });

  test('runtime nodejs22.x on arm64, 512 MB, 10 s (the dispatcher 120 s, the retention job 900 s), tracing from context, Powertools service name', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: 512,
        Timeout: timeoutOf(ALL_FUNCTIONS.find((f) => functionId(f.name) === id)!.name),
        TracingConfig: { Mode: 'Active' },
      });
      expect(fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME).toBe('hr-api');
      // Loopback webhook targets are for `npm start` only (contract §14).
      expect(fn.Properties.Environment.Variables.WEBHOOKS_ALLOW_LOOPBACK).toBeUndefined();
    }
  });

  test('each function logs to its own explicit log group with the context retention', () => {
    const logGroupIds = new Set<string>();
    for (const { name } of ALL_FUNCTIONS) {
      const ref = resources[functionId(name)]!.Properties.LoggingConfig.LogGroup.Ref as string;
      expect(resources[ref]).toMatchObject({ Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 14 } });
      logGroupIds.add(ref);
    }
    expect(logGroupIds.size).toBe(ALL_FUNCTIONS.length);
    // Function log groups + the access log; none without retention.
    expect(ofType('AWS::Logs::LogGroup')).toHaveLength(ALL_FUNCTIONS.length + 1);
    for (const [, lg] of ofType('AWS::Logs::LogGroup')) expect(lg.Properties.RetentionInDays).toBe(14);
  });

  test('TABLE_NAME is set exactly for functions with table access', () => {
    for (const { name, access } of ALL_FUNCTIONS) {
      const vars = resources[functionId(name)]!.Properties.Environment.Variables;
      if (access === 'none') expect(vars.TABLE_NAME).toBeUndefined();
      else expect(vars.TABLE_NAME).toEqual({ Ref: tableId });
    }
  });

  test('functions of token routes cache token lookups for 60 s (contract §15); the others have no cache setting', () => {
    for (const { name } of ALL_FUNCTIONS) {
      const vars = resources[functionId(name)]!.Properties.Environment.Variables;
      const auth = ROUTES.some((r) => r.name === name && r.auth);
      expect(vars.AUTH_CACHE_SECONDS).toBe(auth ? '60' : undefined);
    }
  });
});

describe('HTTP API', () => {
  test('every route key "METHOD path" exists plus $default, each integrated with its own function', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route');
    expect(routes).toHaveLength(ROUTES.length + 1);
    const byKey = new Map(routes.map(([, r]) => [r.Properties.RouteKey as string, r]));
    const expected = [
      ...ROUTES.map((r) => ({ key: `${r.method} ${r.path}`, name: r.name as string })),
      { key: '$default', name: FALLBACK_ROUTE.name },
    ];
    for (const { key, name } of expected) {
      const route = byKey.get(key);
      expect(route).toBeDefined();
      const target = JSON.stringify(route!.Properties.Target);
      const integrationId = /"Ref":"([^"]+)"/.exec(target)?.[1];
      expect(resources[integrationId!]?.Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { 'Fn::GetAtt': [functionId(name), 'Arn'] },
      });
    }
  });

  test('no API Gateway authorizer: authentication happens in the functions', () => {
    expect(ofType('AWS::ApiGatewayV2::Authorizer')).toHaveLength(0);
    for (const [, route] of ofType('AWS::ApiGatewayV2::Route')) {
      expect([undefined, 'NONE']).toContain(route.Properties.AuthorizationType);
    }
  });

  test('$default stage: auto-deploy, throttling from context, JSON access log', () => {
    const stages = ofType('AWS::ApiGatewayV2::Stage');
    expect(stages).toHaveLength(1);
    const props = stages[0]![1].Properties;
    expect(props).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 37, ThrottlingBurstLimit: 74 },
    });
    const logGroupId = props.AccessLogSettings.DestinationArn['Fn::GetAtt'][0] as string;
    expect(resources[logGroupId]?.Type).toBe('AWS::Logs::LogGroup');
    const format = JSON.parse(props.AccessLogSettings.Format as string);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      routeKey: '$context.routeKey',
    });
  });

  test('outputs ApiUrl and TableName', () => {
    template.hasOutput('ApiUrl', { Value: Match.objectLike({ 'Fn::Join': Match.anyValue() }) });
    template.hasOutput('TableName', { Value: { Ref: tableId } });
  });
});

describe('table', () => {
  test('keys and global secondary indexes equal src/data/dynamo/table-definition.ts', () => {
    const props = resources[tableId]!.Properties;
    expect(props.KeySchema).toEqual([
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ]);
    const expectedIndexes = TABLE.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
      ],
      Projection: projectionOf(index),
    }));
    expect(props.GlobalSecondaryIndexes).toEqual(expectedIndexes);

    const expectedAttributes = new Map<string, string>([
      [TABLE.partitionKey, 'S'],
      [TABLE.sortKey, 'S'],
    ]);
    for (const index of TABLE.indexes) {
      expectedAttributes.set(index.partitionKey, 'S');
      expectedAttributes.set(index.sortKey.name, index.sortKey.type);
    }
    const actualAttributes = new Map<string, string>(
      props.AttributeDefinitions.map((a: { AttributeName: string; AttributeType: string }) => [
        a.AttributeName,
        a.AttributeType,
      ]),
    );
    expect(actualAttributes).toEqual(expectedAttributes);
  });

  test('on-demand, PITR, deletion protection, retained, encrypted, TTL attribute from src/data/dynamo/table-definition.ts', () => {
    expect(ofType('AWS::DynamoDB::Table')).toHaveLength(1);
    const table = resources[tableId]!;
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
      SSESpecification: { SSEEnabled: true },
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
    });
  });
});

describe('IAM least privilege', () => {
  const tableArn = (): Json => ({ 'Fn::GetAtt': [tableId, 'Arn'] });
  const indexArn = (index: string): Json => ({ 'Fn::Join': ['', [tableArn(), `/index/${index}`]] });
  // The rate count statement (its LeadingKeys condition) is checked on its own below.
  const dynamoStatements = (name: string) =>
    statementsOf(name).filter((s) => asArray(s.Action).some((a) => a.startsWith('dynamodb:')) && !s.Condition);

  test('each function gets exactly its declared actions on the table and its declared indexes, nothing else', () => {
    for (const { name } of ALL_FUNCTIONS) {
      const grant =
        name === DISPATCHER.name
          ? DISPATCHER.grant
          : name === RETENTION_JOB.name
            ? RETENTION_JOB.grant
            : name === EFFECTIVE_JOB.name
              ? EFFECTIVE_JOB.grant
              : name === CHECK_JOB.name
                ? CHECK_JOB.grant
                : name === EXPORT_WORKER.name
                  ? EXPORT_WORKER.grant
                  : name === IMPORT_WORKER.name
                    ? IMPORT_WORKER.grant
                    : TABLE_GRANTS[name as keyof typeof TABLE_GRANTS];
      const statements = dynamoStatements(name);
      if (grant.actions.length === 0) {
        expect({ name, statements }).toEqual({ name, statements: [] });
        continue;
      }
      expect(statements).toHaveLength(1);
      expect({ name, actions: asArray(statements[0]!.Action).sort() }).toEqual({
        name,
        actions: grant.actions.map((a) => `dynamodb:${a}`).sort(),
      });
      expect({ name, resources: asArray(statements[0]!.Resource) }).toEqual({
        name,
        resources: [tableArn(), ...grant.indexes.map(indexArn)],
      });
    }
  });

  // What the code paths call (read from src/data and src/services), written out so a grant change is a test change.
  test.each([
    ['get-employee', ['BatchGetItem', 'GetItem'], []],
    ['get-location', ['GetItem'], []],
    ['list-locations', ['BatchGetItem', 'GetItem', 'Query'], ['list-keys']],
    ['list-employees', ['BatchGetItem', 'GetItem', 'Query'], ['list-keys']],
    ['list-employee-jobs', ['BatchGetItem', 'GetItem', 'Query'], ['list-keys', 'sublist-keys']],
    [
      'list-applications',
      ['BatchGetItem', 'GetItem', 'Query'],
      ['list-keys', 'sublist-keys', 'statuslist-keys', 'updatedlist-keys'],
    ],
    ['create-employee', ['BatchGetItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'], []],
    ['update-employee', ['BatchGetItem', 'DeleteItem', 'GetItem', 'PutItem', 'UpdateItem'], []],
    ['create-employee-job', ['BatchGetItem', 'ConditionCheckItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'], []],
    // Creates Query their kind's lane counters (src/data/feed-store.ts readKindLanes); creates and updates Query a
    // list's summary when they fold it (src/data/lists/counter.ts foldSummary). The feed's page and end Query every
    // lane counter.
    ['create-application', ['BatchGetItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'], []],
    ['update-application', ['BatchGetItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'], []],
    ['list-changes', ['BatchGetItem', 'GetItem', 'Query'], []],
    [
      'delete-application',
      ['BatchGetItem', 'ConditionCheckItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'],
      [],
    ],
  ])('%s may call %j on the table and the indexes %j', (name, actions, indexes) => {
    const [statement] = dynamoStatements(name);
    expect(asArray(statement!.Action).sort()).toEqual(actions.map((a) => `dynamodb:${a}`));
    expect(asArray(statement!.Resource)).toEqual([tableArn(), ...indexes.map(indexArn)]);
  });

  test('every function of a route with a token may UpdateItem the RATE# counter items and no other item (contract §18)', () => {
    for (const { name } of ALL_FUNCTIONS) {
      const limited = statementsOf(name).filter((s) => s.Condition);
      const expected = ROUTES.some((r) => r.name === name && r.auth)
        ? [
            {
              Action: 'dynamodb:UpdateItem',
              Effect: 'Allow',
              Resource: tableArn(),
              Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*'] } },
            },
          ]
        : [];
      expect({ name, limited }).toEqual({ name, limited: expected });
    }
  });

  test('GET routes write nothing; DeleteItem only where something is deleted', () => {
    for (const route of ROUTES.filter((r) => r.method === 'GET')) {
      expect({
        route: route.name,
        writes: dynamoActionsOf(route.name).filter((a) => WRITE_ACTIONS.includes(a)),
      }).toEqual({ route: route.name, writes: [] });
    }
    const deleters = ALL_FUNCTIONS.filter(({ name }) => dynamoActionsOf(name).includes('dynamodb:DeleteItem'));
    expect(deleters.map((f) => f.name).sort()).toEqual([
      RETENTION_JOB.name,
      // an import's entry among the imports in progress (the watchdog's list) goes when it ends or is replaced
      'create-import',
      'delete-application',
      'delete-attachment',
      'delete-import',
      'delete-webhook-subscription',
      // an imported row's employee_number change releases the old value, as update-employee does
      IMPORT_WORKER.name,
      'update-employee',
    ]);
  });

  test('public routes, access "none" routes and the fallback have no table access and no TABLE_NAME', () => {
    const publicRoutes = ROUTES.filter((r) => !r.auth).map((r) => r.name as string);
    expect(publicRoutes.length).toBeGreaterThan(0);
    const noAccess = ALL_FUNCTIONS.filter((f) => f.access === 'none').map((f) => f.name);
    for (const name of new Set([...publicRoutes, ...noAccess, FALLBACK_ROUTE.name])) {
      expect(dynamoActionsOf(name)).toEqual([]);
      expect(resources[functionId(name)]!.Properties.Environment.Variables.TABLE_NAME).toBeUndefined();
    }
  });

  test('no policy anywhere allows Scan, dynamodb:*, * or index/*, and no managed policies are attached', () => {
    const statements = ofType('AWS::IAM::Policy').flatMap(
      ([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
    );
    const actions = statements.flatMap((s) => asArray(s.Action));
    expect(actions.length).toBeGreaterThan(0);
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions).not.toContain('dynamodb:*');
    expect(actions).not.toContain('*');
    expect(JSON.stringify(statements)).not.toContain('/index/*');
    for (const [, role] of ofType('AWS::IAM::Role')) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  test("log permissions are scoped to the function's own log group", () => {
    for (const { name } of ALL_FUNCTIONS) {
      const logStatements = statementsOf(name).filter((s) => asArray(s.Action).some((a) => a.startsWith('logs:')));
      expect(logStatements).toHaveLength(1);
      const logGroup = resources[functionId(name)]!.Properties.LoggingConfig.LogGroup.Ref;
      expect(logStatements[0]!.Resource).toEqual({ 'Fn::GetAtt': [logGroup, 'Arn'] });
    }
  });
});

describe('alarms', () => {
  const alarms = (): Resource[] => ofType('AWS::CloudWatch::Alarm').map(([, a]) => a);
  const metricNames = (alarm: Resource): string[] => [
    ...(alarm.Properties.MetricName ? [alarm.Properties.MetricName as string] : []),
    ...((alarm.Properties.Metrics ?? []) as { MetricStat?: { Metric: { MetricName: string } } }[]).flatMap((m) =>
      m.MetricStat ? [m.MetricStat.Metric.MetricName] : [],
    ),
  ];
  const ofFunction = (name: string, metric: string): Resource[] =>
    alarms().filter(
      (a) =>
        a.Properties.Namespace === 'AWS/Lambda' &&
        a.Properties.MetricName === metric &&
        JSON.stringify(a.Properties.Dimensions) ===
          JSON.stringify([{ Name: 'FunctionName', Value: { Ref: functionId(name) } }]),
    );

  test('API 5xx rate above 1 %', () => {
    const api5xx = alarms().filter((a) => metricNames(a).includes('5xx'));
    expect(api5xx).toHaveLength(1);
    expect(metricNames(api5xx[0]!)).toContain('Count');
    expect(api5xx[0]!.Properties).toMatchObject({ Threshold: THRESHOLDS.api5xxRatePercent });
  });

  test('API p99 latency, sustained over 3 periods', () => {
    const latency = alarms().filter(
      (a) => a.Properties.Namespace === 'AWS/ApiGateway' && a.Properties.MetricName === 'Latency',
    );
    expect(latency).toHaveLength(1);
    expect(latency[0]!.Properties).toMatchObject({
      ExtendedStatistic: 'p99',
      Threshold: THRESHOLDS.apiP99LatencyMs,
      EvaluationPeriods: 3,
      Dimensions: [{ Name: 'ApiId', Value: { Ref: stack.getLogicalId(stack.api.node.defaultChild as CfnResource) } }],
    });
  });

  test('an Errors, a Throttles and a p99 Duration alarm at 80 % of the timeout (10 s; dispatcher 120 s; retention 900 s) for every function', () => {
    for (const { name } of ALL_FUNCTIONS) {
      expect(ofFunction(name, 'Errors')).toHaveLength(1);
      expect(ofFunction(name, 'Throttles')).toHaveLength(1);
      const duration = ofFunction(name, 'Duration');
      expect(duration).toHaveLength(1);
      expect(duration[0]!.Properties).toMatchObject({
        ExtendedStatistic: 'p99',
        Threshold: timeoutOf(name) * 800,
      });
    }
  });

  test('DynamoDB throttling, system errors and transaction conflicts on the table', () => {
    const onTable = (metric: string): Resource[] =>
      alarms().filter((a) => metricNames(a).includes(metric) && JSON.stringify(a).includes(`"Ref":"${tableId}"`));
    expect(onTable('ThrottledRequests')).toHaveLength(1);
    const events = onTable('ReadThrottleEvents');
    expect(events).toHaveLength(1);
    expect(metricNames(events[0]!)).toContain('WriteThrottleEvents');
    expect(onTable('SystemErrors')).toHaveLength(1);
    const conflicts = onTable('TransactionConflict');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]!.Properties).toMatchObject({
      Namespace: 'AWS/DynamoDB',
      Statistic: 'Sum',
      Threshold: THRESHOLDS.transactionConflicts,
      Dimensions: [{ Name: 'TableName', Value: { Ref: tableId } }],
    });
  });

  test("429 rate_limited over all businesses (contract §18), from the functions' EMF metric", () => {
    const limited = alarms().filter((a) => metricNames(a).includes('RateLimited'));
    expect(limited).toHaveLength(1);
    expect(limited[0]!.Properties).toMatchObject({
      Namespace: 'HrApi',
      Statistic: 'Sum',
      Threshold: THRESHOLDS.rateLimited,
      Dimensions: [{ Name: 'service', Value: 'hr-api' }],
    });
  });

  test('the full set: 3 per function + 7 for the service + 2 for webhook queues + rejected uploads + failed checks + export dead letters + failed imports + stalled imports, nothing else', () => {
    expect(alarms()).toHaveLength(3 * ALL_FUNCTIONS.length + 7 + 2 + 1 + 1 + 1 + 1 + 1);
    // Contract §19: one attachment check that kept failing (an upload left pending) raises it.
    const failedChecks = alarms().filter((a) => a.Properties.MetricName === 'FailedAttachmentChecks');
    expect(failedChecks.map((a) => [a.Properties.Threshold, a.Properties.Statistic])).toEqual([[1, 'Sum']]);
    const failedImports = alarms().filter((a) => a.Properties.MetricName === 'FailedImports');
    expect(failedImports).toHaveLength(1);
    // Contract §22: one import ended as run_failed (its runs kept failing, or the watchdog found it stalled) raises it.
    const stalled = alarms().filter((a) => a.Properties.MetricName === 'StalledImports');
    expect(stalled.map((a) => [a.Properties.Threshold, a.Properties.Statistic])).toEqual([[1, 'Sum']]);
  });

  test('the import watchdog: a schedule invokes the run function with {"watch": true}, within a stall\'s margin', () => {
    const runFn = functionId(IMPORT_WORKER.name);
    const rules = ofType('AWS::Events::Rule')
      .map(([, rule]) => rule.Properties)
      .filter((p) => JSON.stringify(p.Targets).includes(runFn));
    expect(rules).toHaveLength(1);
    expect(rules[0]!.ScheduleExpression).toBe(`rate(${IMPORT_WORKER.watchEvery.toMinutes()} minutes)`);
    expect(JSON.parse(rules[0]!.Targets[0].Input)).toEqual({ watch: true });
    // A stalled import is ended at most one round after its margin.
    expect(IMPORT_WORKER.watchEvery.toMilliseconds()).toBeLessThanOrEqual(IMPORT_STALL_MS - IMPORT_RUN_TIMEOUT_MS);
    expect(IMPORT_WORKER.timeout.toMilliseconds()).toBe(IMPORT_RUN_TIMEOUT_MS);
  });

  test('every alarm notifies the alarm topic, which mails alarmEmail', () => {
    const topicId = stack.getLogicalId(stack.alarmTopic.node.defaultChild as CfnResource);
    for (const alarm of alarms()) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    const subscriptions = ofType('AWS::SNS::Subscription').map(([, sub]) => sub.Properties);
    expect(subscriptions).toEqual([{ Protocol: 'email', Endpoint: ALARM_EMAIL, TopicArn: { Ref: topicId } }]);
  });
});

describe('dashboard', () => {
  /** The dashboard body with CloudFormation references replaced by placeholders, parsed. */
  const body = (): { widgets: { type: string; properties: { title?: string; metrics?: Json[][] } }[] } => {
    const dashboards = ofType('AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const raw = dashboards[0]![1].Properties.DashboardBody as Json;
    const parts: Json[] = raw['Fn::Join'][1];
    return JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'REF')).join(''));
  };
  const widget = (title: string) => {
    const found = body().widgets.find((w) => w.properties.title === title);
    expect({ title, found: found !== undefined }).toEqual({ title, found: true });
    return found!;
  };
  const metricNamesOf = (title: string): string[] =>
    (widget(title).properties.metrics ?? []).flatMap((m) =>
      typeof m[1] === 'string' && !String(m[0]).startsWith('{') ? [m[1]] : [],
    );

  test('rate limits: 429s over time and the top 10 businesses by 429s (Metrics Insights)', () => {
    expect(metricNamesOf('429 rate_limited (all businesses)')).toEqual(['RateLimited']);
    expect(JSON.stringify(widget('429 rate_limited: top 10 businesses'))).toContain(
      'SELECT SUM(RateLimited) FROM SCHEMA(\\"HrApi\\", business_id, service) GROUP BY business_id ORDER BY SUM() DESC LIMIT 10',
    );
  });

  test('the API: requests, 4xx/5xx, p50/p99 latency', () => {
    expect(metricNamesOf('API requests')).toEqual(['Count']);
    expect(metricNamesOf('API 4xx / 5xx')).toEqual(['4xx', '5xx']);
    expect(JSON.stringify(widget('API latency p50 / p99 (ms)'))).toMatch(/"p50"[\s\S]*"p99"/);
  });

  test('per route group of the route table: requests, 4xx, 5xx and latency p50/p99', () => {
    const groups = [...new Set(ROUTES.map((r) => r.tag as string))];
    expect(groups).toEqual(expect.arrayContaining(['Employees', 'Applications', 'Reference data']));
    for (const group of groups) {
      const requests = JSON.stringify(widget(`${group}: requests, 4xx, 5xx`));
      for (const route of ROUTES.filter((r) => r.tag === group)) expect(requests).toContain(`"${route.name}"`);
      expect(requests).toContain('"Requests"');
      const latency = JSON.stringify(widget(`${group}: latency p50 / p99 (ms)`));
      expect(latency).toContain(`"route_group","${group}"`);
      expect(latency).toMatch(/"stat":"p50"[\s\S]*"stat":"p99"/);
    }
  });

  test('functions: errors, throttles, duration, concurrency, one line per function', () => {
    for (const [title, metric] of [
      ['Function errors', 'Errors'],
      ['Function throttles', 'Throttles'],
      ['Function duration p99 (ms)', 'Duration'],
      ['Function concurrency (max)', 'ConcurrentExecutions'],
    ] as const) {
      expect(metricNamesOf(title)).toEqual(ALL_FUNCTIONS.map(() => metric));
    }
  });

  test('table: consumed capacity, throttles, transaction conflicts', () => {
    expect(metricNamesOf('Table consumed capacity (units)')).toEqual([
      'ConsumedReadCapacityUnits',
      'ConsumedWriteCapacityUnits',
    ]);
    expect(JSON.stringify(widget('Table throttles'))).toContain('ThrottledRequests');
    expect(JSON.stringify(widget('Table transaction conflicts, system errors'))).toContain('"TransactionConflict"');
  });
});

describe('stage tag', () => {
  test('every taggable resource carries stage=prod', () => {
    const taggable = stack.node
      .findAll()
      .filter((c): c is CfnResource => CfnResource.isCfnResource(c) && TagManager.isTaggable(c));
    expect(taggable.length).toBeGreaterThan(ALL_FUNCTIONS.length * 2);
    for (const resource of taggable) {
      const tags: Json = resources[stack.getLogicalId(resource)]?.Properties.Tags;
      const stage = Array.isArray(tags) ? tags.find((t: { Key: string }) => t.Key === 'stage')?.Value : tags?.stage;
      expect({ resource: resource.node.path, stage }).toEqual({ resource: resource.node.path, stage: 'prod' });
    }
  });
});

describe('cdk-nag AwsSolutions', () => {
  test('no unacknowledged findings', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    const findings = report.violations.map(
      (v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
  });

  test('the acknowledged findings are exactly the reviewed list, each with a reason', () => {
    const acknowledged = new Map<string, string>();
    const visit = (node: IConstruct): void => {
      for (const entry of node.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
          acknowledged.set(id.replace(/^annotation::/i, ''), reason);
        }
      }
      node.node.children.forEach(visit);
    };
    visit(stack);
    const bucket = attachmentsArnInFindings('prod');
    const exportFiles = `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(stack.exports.bucket.node.defaultChild as CfnResource)}.Arn>/exports/*]`;
    expect([...acknowledged.keys()].sort()).toEqual(
      [
        'AwsSolutions-APIG4',
        'AwsSolutions-IAM5[Resource::*]',
        `AwsSolutions-IAM5[Resource::${bucket}/uploads/*]`,
        `AwsSolutions-IAM5[Resource::${bucket}/attachments/*]`,
        `AwsSolutions-IAM5[Resource::${bucket}/imports/*]`,
        'AwsSolutions-L1',
        'AwsSolutions-S1',
        'AwsSolutions-SQS3',
        // CDK's own, on the access-log bucket's policy for the S3 logging service
        'CloudFormation-Validate::W3045',
        exportFiles,
      ].sort(),
    );
    for (const reason of acknowledged.values()) expect(reason.length).toBeGreaterThan(20);
  });
});

describe('webhook dispatcher', () => {
  test('may read and update the table, batch-write delivery log items (no Delete or Scan), decrypt secrets with its key and queue retries', () => {
    expect(dynamoActionsOf(DISPATCHER.name).sort()).toEqual(
      [
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ].sort(),
    );
    const statements = statementsOf(DISPATCHER.name);
    const actions = statements.flatMap((s) => asArray(s.Action));
    const keyId = stack.getLogicalId(stack.webhooks.key.node.defaultChild as CfnResource);
    const queueId = stack.getLogicalId(stack.webhooks.retryQueue.node.defaultChild as CfnResource);
    const kmsStatements = statements.filter((s) => asArray(s.Action).some((a) => a.startsWith('kms:')));
    expect(kmsStatements.flatMap((s) => asArray(s.Action))).toEqual(['kms:Decrypt']);
    expect(kmsStatements.map((s) => s.Resource)).toEqual([{ 'Fn::GetAtt': [keyId, 'Arn'] }]);
    expect(actions).toContain('sqs:SendMessage');
    expect(actions.filter((a) => a.startsWith('sqs:')).every((a) => !a.includes('*'))).toBe(true);
    for (const s of statements.filter((st) => asArray(st.Action).some((a) => a.startsWith('sqs:'))))
      expect(s.Resource).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
  });

  test('lane messages reach it one subscription per invocation, at most DISPATCHER.lanes at once', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: DISPATCHER.lanes },
    });
  });

  test('only the create route and the dispatcher may use the secrets key, the create route Encrypt+Decrypt', () => {
    const kmsUsers = ALL_FUNCTIONS.map((f) => f.name).filter((name) =>
      statementsOf(name).some((s) => asArray(s.Action).some((a) => a.startsWith('kms:'))),
    );
    expect(kmsUsers.sort()).toEqual(['create-webhook-subscription', DISPATCHER.name].sort());
    const createKms = statementsOf('create-webhook-subscription')
      .flatMap((s) => asArray(s.Action))
      .filter((a) => a.startsWith('kms:'));
    expect(createKms.sort()).toEqual(['kms:Decrypt', 'kms:Encrypt']);
    const keyProps = resources[stack.getLogicalId(stack.webhooks.key.node.defaultChild as CfnResource)]!.Properties;
    expect(keyProps.EnableKeyRotation).toBe(true);
  });

  test('runs every minute and on the retry queue, whose dead letters and backlog raise alarms to the topic', () => {
    const fnArn = { 'Fn::GetAtt': [functionId(DISPATCHER.name), 'Arn'] };
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: Match.arrayWith([Match.objectLike({ Arn: fnArn })]),
    });
    const queueId = stack.getLogicalId(stack.webhooks.retryQueue.node.defaultChild as CfnResource);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: functionId(DISPATCHER.name) },
    });
    const dlqId = stack.getLogicalId(stack.webhooks.deadLetters.node.defaultChild as CfnResource);
    expect(resources[queueId]!.Properties.RedrivePolicy.deadLetterTargetArn).toEqual({
      'Fn::GetAtt': [dlqId, 'Arn'],
    });
    const fn = stack.functions[DISPATCHER.name]!;
    const alarmIds = [...stack.webhooks.alarms, fn.errorsAlarm, fn.throttlesAlarm].map((a) =>
      stack.getLogicalId(a.node.defaultChild as CfnResource),
    );
    const topicId = stack.getLogicalId(stack.alarmTopic.node.defaultChild as CfnResource);
    for (const id of alarmIds) expect(resources[id]!.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    expect(
      resources[stack.getLogicalId(stack.webhooks.alarms[0]!.node.defaultChild as CfnResource)]!.Properties.Dimensions,
    ).toEqual([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }]);
  });
});

describe('export worker (contract §20)', () => {
  const s3Of = (name: string) => statementsOf(name).filter((st) => asArray(st.Action).some((a) => a.startsWith('s3:')));
  test('reads the business lists and records, updates its job, writes files only under exports/ of its bucket', () => {
    expect(dynamoActionsOf(EXPORT_WORKER.name).sort()).toEqual(
      ['BatchGetItem', 'Query', 'UpdateItem'].map((a) => `dynamodb:${a}`).sort(),
    );
    const files = s3Of(EXPORT_WORKER.name);
    expect(files.flatMap((st) => asArray(st.Action)).sort()).toEqual(['s3:AbortMultipartUpload', 's3:PutObject']);
    expect(JSON.stringify(files.map((st) => st.Resource))).toContain('/exports/*');
    expect(s3Of('get-export').flatMap((st) => asArray(st.Action))).toEqual(['s3:GetObject']);
    expect(s3Of('create-export')).toEqual([]);
  });

  test('runs from its queue, one message at a time; files expire after a day', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId(EXPORT_WORKER.name) },
      BatchSize: 1,
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 1, Status: 'Enabled' })]),
      },
    });
  });
});

/** A scheduled job: its rule on `cron` invokes it (with the events service's permission) and its Errors alarm the topic. */
function expectScheduledJob(name: string, cron: string, rule: IConstruct): void {
  const fnArn = { 'Fn::GetAtt': [functionId(name), 'Arn'] };
  template.hasResourceProperties('AWS::Events::Rule', {
    ScheduleExpression: cron,
    State: 'ENABLED',
    Targets: [Match.objectLike({ Arn: fnArn })],
  });
  template.hasResourceProperties('AWS::Lambda::Permission', {
    Action: 'lambda:InvokeFunction',
    Principal: 'events.amazonaws.com',
    FunctionName: fnArn,
    SourceArn: { 'Fn::GetAtt': [stack.getLogicalId(rule.node.defaultChild as CfnResource), 'Arn'] },
  });
  const fn = stack.functions[name]!;
  const topicId = stack.getLogicalId(stack.alarmTopic.node.defaultChild as CfnResource);
  const errors = resources[stack.getLogicalId(fn.errorsAlarm.node.defaultChild as CfnResource)]!;
  expect(errors.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
  expect(errors.Properties.MetricName).toBe('Errors');
  expect(errors.Properties.Dimensions).toEqual([{ Name: 'FunctionName', Value: { Ref: functionId(name) } }]);
}

describe('retention job', () => {
  test('may read, erase and update applications (no Scan) and Query only the order-of-writes index', () => {
    expect(dynamoActionsOf(RETENTION_JOB.name).sort()).toEqual(
      ['BatchGetItem', 'ConditionCheckItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem']
        .map((a) => `dynamodb:${a}`)
        .sort(),
    );
    const resourcesOf = statementsOf(RETENTION_JOB.name).flatMap((s) => asArray(s.Resource));
    expect(JSON.stringify(resourcesOf)).toContain('/index/updatedlist-keys');
    expect(JSON.stringify(resourcesOf)).not.toContain('/index/*');
    // Nothing but DynamoDB, the deletion of erased attachments' bytes and of export files holding an erased
    // applicant (contract §20) (and its own log group, granted by ApiFunction).
    const other = statementsOf(RETENTION_JOB.name)
      .flatMap((s) => asArray(s.Action))
      .filter((a) => !a.startsWith('dynamodb:') && !a.startsWith('logs:') && !a.startsWith('xray:'));
    expect(other).toEqual(['s3:DeleteObject', 's3:DeleteObject', 's3:DeleteObject']);
  });

  test('runs once a day on its own rule, and its errors alarm the topic', () => {
    expectScheduledJob(RETENTION_JOB.name, 'cron(15 3 * * ? *)', stack.retentionSchedule);
    expect(resources[functionId(RETENTION_JOB.name)]!.Properties.Environment.Variables.TABLE_NAME).toBeDefined();
  });
});

describe('effective-date job', () => {
  test('may read the registry, the day indexes and employees, and write employees, feed entries and the registry: no Scan, no delete', () => {
    expect(dynamoActionsOf(EFFECTIVE_JOB.name).sort()).toEqual(
      ['BatchGetItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'].map((a) => `dynamodb:${a}`).sort(),
    );
    const resourcesOf = JSON.stringify(statementsOf(EFFECTIVE_JOB.name).flatMap((s) => asArray(s.Resource)));
    expect(resourcesOf).toContain('/index/jobstart-keys');
    expect(resourcesOf).toContain('/index/jobend-keys');
    expect(resourcesOf).not.toContain('/index/*');
    const other = statementsOf(EFFECTIVE_JOB.name)
      .flatMap((s) => asArray(s.Action))
      .filter((a) => !a.startsWith('dynamodb:') && !a.startsWith('logs:') && !a.startsWith('xray:'));
    expect(other).toEqual([]);
  });

  test('runs a minute after every quarter hour on its own rule, and its errors (a failed run) alarm the topic', () => {
    expectScheduledJob(EFFECTIVE_JOB.name, 'cron(1/15 * * * ? *)', stack.effectiveSchedule);
  });
});

describe('attachments bucket (contract §19)', () => {
  const bucketProps = (): Json =>
    resources[stack.getLogicalId(stack.attachments.bucket.node.defaultChild as CfnResource)]!.Properties;

  test('private: public access blocked, encrypted, objects owned by the bucket owner, retained', () => {
    const props = bucketProps();
    expect(props.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(props.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault).toEqual({
      SSEAlgorithm: 'AES256',
    });
    expect(props.OwnershipControls.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    expect(props.LoggingConfiguration.DestinationBucketName).toBeDefined();
    const id = stack.getLogicalId(stack.attachments.bucket.node.defaultChild as CfnResource);
    expect(resources[id]!.DeletionPolicy).toBe('Retain');
  });

  test('denies every request without TLS', () => {
    const [, policy] = ofType('AWS::S3::BucketPolicy').find(
      ([, p]) =>
        p.Properties.Bucket.Ref === stack.getLogicalId(stack.attachments.bucket.node.defaultChild as CfnResource),
    )!;
    expect(policy.Properties.PolicyDocument.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      ]),
    );
  });

  test('unchecked uploads expire after a day, unfinished multipart uploads are aborted after a day', () => {
    expect(bucketProps().LifecycleConfiguration.Rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Prefix: 'uploads/', ExpirationInDays: 1, Status: 'Enabled' }),
        expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
      ]),
    );
  });

  test('objects created under uploads/ invoke the check function, under imports/uploads/ the import run; S3 may invoke them for this bucket only', () => {
    expect(bucketProps().NotificationConfiguration.LambdaConfigurations).toEqual([
      {
        Event: 's3:ObjectCreated:*',
        Function: { 'Fn::GetAtt': [functionId(CHECK_JOB.name), 'Arn'] },
        Filter: { S3Key: { Rules: [{ Name: 'prefix', Value: 'uploads/' }] } },
      },
      {
        Event: 's3:ObjectCreated:*',
        Function: { 'Fn::GetAtt': [functionId(IMPORT_WORKER.name), 'Arn'] },
        Filter: { S3Key: { Rules: [{ Name: 'prefix', Value: 'imports/uploads/' }] } },
      },
    ]);
    const permissions = ofType('AWS::Lambda::Permission').filter(
      ([, p]) => p.Properties.Principal === 's3.amazonaws.com',
    );
    expect(permissions).toHaveLength(2);
    for (const [, permission] of permissions) {
      expect(permission.Properties.SourceAccount).toEqual({ Ref: 'AWS::AccountId' });
      expect(JSON.stringify(permission.Properties.SourceArn)).toContain('-attachments-');
    }
  });

  test('the import run may invoke itself (its next run) and nothing else; results expire after 7 days', () => {
    const invokes = statementsOf(IMPORT_WORKER.name).filter((s) => asArray(s.Action).includes('lambda:InvokeFunction'));
    expect(invokes).toEqual([
      expect.objectContaining({ Resource: { 'Fn::GetAtt': [functionId(IMPORT_WORKER.name), 'Arn'] } }),
    ]);
    const rules = bucketProps().LifecycleConfiguration.Rules as {
      Id: string;
      Prefix?: string;
      ExpirationInDays?: number;
    }[];
    expect(rules.find((r) => r.Id === 'expire-import-results')).toMatchObject({
      Prefix: 'imports/results/',
      ExpirationInDays: 7,
    });
  });

  test('each function gets exactly its S3 actions of BUCKET_GRANTS, on its prefix only; nobody else any', () => {
    const s3Grants = (name: string): string[] =>
      statementsOf(name)
        .filter((s) => asArray(s.Action).some((a) => a.startsWith('s3:')))
        // The export files' own bucket is checked in 'export worker' below.
        .filter((s) => !JSON.stringify(s.Resource).includes('/exports/*'))
        .flatMap((s) =>
          asArray(s.Action).map(
            (a) => `${a} ${/\/(uploads|attachments|imports)\/\*/.exec(JSON.stringify(s.Resource))?.[1]}`,
          ),
        )
        .sort();
    for (const { name } of ALL_FUNCTIONS) {
      const grant = BUCKET_GRANTS[name as keyof typeof BUCKET_GRANTS];
      const expected = [
        ...(grant?.uploads ?? []).map((a) => `${a} uploads`),
        ...(grant?.attachments ?? []).map((a) => `${a} attachments`),
        ...(grant?.imports ?? []).map((a) => `${a} imports`),
      ].sort();
      expect({ name, grants: s3Grants(name) }).toEqual({ name, grants: expected });
    }
  });

  test('an alarm on rejected uploads notifies the topic', () => {
    const alarm = resources[stack.getLogicalId(stack.attachments.rejectedAlarm.node.defaultChild as CfnResource)]!;
    expect(alarm.Properties).toMatchObject({
      MetricName: 'RejectedUploads',
      Namespace: 'HrApi',
      Statistic: 'Sum',
      AlarmActions: [{ Ref: expect.stringMatching(/^AlarmTopic/) }],
    });
  });
});

describe('malware scanning (context malwareScan, docs/deploy.md)', () => {
  let scanApp: App;
  let scanStack: ApiStack;
  let scanResources: Record<string, Resource>;
  const scanOfType = (type: string): [string, Resource][] =>
    Object.entries(scanResources).filter(([, r]) => r.Type === type);
  const checkEnv = (s: ApiStack, all: Record<string, Resource>): Record<string, unknown> =>
    all[s.getLogicalId(s.functions[CHECK_JOB.name]!.function.node.defaultChild as CfnFunction)]!.Properties.Environment
      .Variables;

  beforeAll(() => {
    scanApp = new App({ context: { ...CONTEXT, malwareScan: 'true' } });
    scanStack = new ApiStack(scanApp, 'HrApi-prod', { ...apiStackPropsFromContext(scanApp), functionsDir: stubDir });
    scanResources = Template.fromStack(scanStack).toJSON().Resources;
  });

  test("on: CDK's CloudFormation validation finds nothing unacknowledged (this template holds every resource of the default one)", () => {
    expect(Object.keys(resources).filter((id) => scanResources[id]?.Type !== resources[id]!.Type)).toEqual([]);
    // The synth above, cached: its validation report. A finding is only a warning to `cdk synth`; here it fails.
    const report = JSON.parse(fs.readFileSync(path.join(scanApp.synth().directory, 'validation-report.json'), 'utf8'));
    const reports = report.pluginReports as { pluginName: string; violations: { ruleName: string }[] }[];
    expect(reports.map((r) => r.pluginName)).toContain('CloudFormation Validate');
    expect(reports.flatMap((r) => r.violations.map((v) => `${r.pluginName} ${v.ruleName}`))).toEqual([]);
  });

  test('off (the default): no plan, no scan-result rule, the check does not wait for a scan', () => {
    expect(ofType('AWS::GuardDuty::MalwareProtectionPlan')).toEqual([]);
    expect(JSON.stringify(ofType('AWS::Events::Rule'))).not.toContain('GuardDuty');
    expect(checkEnv(stack, resources)).not.toHaveProperty('MALWARE_SCAN');
    const bucket = resources[stack.getLogicalId(stack.attachments.bucket.node.defaultChild as CfnResource)]!;
    expect(bucket.Properties.NotificationConfiguration).not.toHaveProperty('EventBridgeConfiguration');
    expect(stack.attachments.malwareScan).toBeUndefined();
  });

  test('on: a protection plan scans the bucket under uploads/ only, with its own role, no tagging', () => {
    const [[, plan]] = scanOfType('AWS::GuardDuty::MalwareProtectionPlan') as [[string, Resource]];
    expect(JSON.stringify(plan.Properties.ProtectedResource.S3Bucket.BucketName)).toContain('-attachments-');
    expect(plan.Properties.ProtectedResource.S3Bucket.ObjectPrefixes).toEqual(['uploads/']);
    expect(plan.Properties.Actions).toEqual({ Tagging: { Status: 'DISABLED' } });
    const roleId = scanStack.getLogicalId(scanStack.attachments.malwareScan!.role.node.defaultChild as CfnResource);
    expect(plan.Properties.Role).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    // GuardDuty needs S3 to send the bucket's events to EventBridge; declared, so a stack update keeps it.
    const bucket =
      scanResources[scanStack.getLogicalId(scanStack.attachments.bucket.node.defaultChild as CfnResource)]!;
    expect(bucket.Properties.NotificationConfiguration.EventBridgeConfiguration).toEqual({ EventBridgeEnabled: true });
    // The check and the import run.
    expect(bucket.Properties.NotificationConfiguration.LambdaConfigurations).toHaveLength(2);
  });

  test("on: the role is GuardDuty's (this account only) with the documented permissions, object reads on uploads/ only", () => {
    const roleId = scanStack.getLogicalId(scanStack.attachments.malwareScan!.role.node.defaultChild as CfnResource);
    const role = scanResources[roleId]!.Properties;
    expect(role.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'malware-protection-plan.guardduty.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      },
    ]);
    expect(role.ManagedPolicyArns).toBeUndefined();
    const statements: { Action: string | string[]; Resource: unknown; Condition?: unknown }[] = role.Policies.flatMap(
      (p: Json) => p.PolicyDocument.Statement,
    );
    const grants = statements
      .flatMap((s) => {
        const resource = JSON.stringify(s.Resource);
        const where = resource.includes('DO-NOT-DELETE-AmazonGuardDutyMalwareProtectionS3*')
          ? 'managed-rule'
          : resource.includes('/uploads/*')
            ? 'uploads'
            : resource.includes('/malware-protection-resource-validation-object')
              ? 'validation-object'
              : /-attachments-[^/]*$/.test(resource.replace(/"\]\]\}$/, ''))
                ? 'bucket'
                : resource;
        return asArray(s.Action).map((a) => `${a} ${where}`);
      })
      .sort();
    expect(grants).toEqual(
      [
        'events:PutRule managed-rule',
        'events:DeleteRule managed-rule',
        'events:PutTargets managed-rule',
        'events:RemoveTargets managed-rule',
        'events:DescribeRule managed-rule',
        'events:ListTargetsByRule managed-rule',
        's3:PutBucketNotification bucket',
        's3:GetBucketNotification bucket',
        's3:ListBucket bucket',
        's3:PutObject validation-object',
        's3:GetObject uploads',
        's3:GetObjectVersion uploads',
      ].sort(),
    );
    const ruleWrites = statements.find((s) => asArray(s.Action).includes('events:PutRule'))!;
    expect(ruleWrites.Condition).toEqual({
      StringLike: { 'events:ManagedBy': 'malware-protection-plan.guardduty.amazonaws.com' },
    });
  });

  test('on: the scan result for this bucket invokes the check function, which waits for it (MALWARE_SCAN)', () => {
    const [[ruleId, rule]] = scanOfType('AWS::Events::Rule').filter(
      ([, r]) => r.Properties.EventPattern?.source?.[0] === 'aws.guardduty',
    ) as [[string, Resource]];
    expect(rule.Properties.EventPattern.source).toEqual(['aws.guardduty']);
    expect(rule.Properties.EventPattern['detail-type']).toEqual(['GuardDuty Malware Protection Object Scan Result']);
    expect(JSON.stringify(rule.Properties.EventPattern.detail.s3ObjectDetails.bucketName)).toContain('-attachments-');
    const checkId = scanStack.getLogicalId(
      scanStack.functions[CHECK_JOB.name]!.function.node.defaultChild as CfnFunction,
    );
    expect(rule.Properties.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [checkId, 'Arn'] } })]);
    const permission = scanOfType('AWS::Lambda::Permission').find(
      ([, p]) =>
        p.Properties.Principal === 'events.amazonaws.com' && JSON.stringify(p.Properties.SourceArn).includes(ruleId),
    );
    expect(permission?.[1].Properties.FunctionName).toEqual({ 'Fn::GetAtt': [checkId, 'Arn'] });
    expect(checkEnv(scanStack, scanResources)).toMatchObject({ MALWARE_SCAN: 'true' });
    // No function gains S3 actions: the check settles a scanned file with the grants it has.
    const checkRole = scanStack.getLogicalId(scanStack.functions[CHECK_JOB.name]!.role.node.defaultChild as CfnRole);
    const s3Actions = scanOfType('AWS::IAM::Policy')
      .filter(([, p]) => asArray(p.Properties.Roles).some((r: { Ref?: string }) => r.Ref === checkRole))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement)
      .flatMap((s: Json) => asArray(s.Action))
      .filter((a: string) => a.startsWith('s3:'))
      .sort();
    const grant = BUCKET_GRANTS[CHECK_JOB.name]!;
    expect(s3Actions).toEqual([...(grant.uploads ?? []), ...(grant.attachments ?? [])].sort());
  });

  test('on: cdk-nag finds nothing unacknowledged', () => {
    const report = new AwsSolutionsChecks().validateScope(scanStack);
    expect(
      report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    ).toEqual([]);
  });
});
