/**
 * Stack settings from CDK context: defaults, `-c key=value` strings, validation,
 * and one synthesized variant (tracing off, other stage) to see the settings land.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, CfnResource } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import {
  ApiStack,
  CONTEXT_DEFAULTS,
  REPO_ROOT,
  apiStackPropsFromContext,
  functionNames,
  handlerEntry,
} from '../../lib/api-stack';
import { ROUTES } from '../../src/http/routes';

const propsFor = (context: Record<string, unknown>) => apiStackPropsFromContext(new App({ context }));

describe('apiStackPropsFromContext', () => {
  test('defaults when the context is empty: stage dev, which needs no alarm email', () => {
    expect(propsFor({})).toEqual({
      stage: 'dev',
      throttlingRateLimit: 100,
      throttlingBurstLimit: 200,
      tracing: true,
      logRetentionDays: 30,
      malwareScan: false,
    });
  });

  test('cdk.json carries every setting, with the same defaults', () => {
    const cdkJson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
      context: Record<string, unknown>;
    };
    for (const [key, value] of Object.entries(CONTEXT_DEFAULTS)) expect(cdkJson.context[key]).toEqual(value);
  });

  test('`-c` values arrive as strings and are parsed', () => {
    expect(
      propsFor({
        stage: 'staging',
        throttlingRateLimit: '50',
        throttlingBurstLimit: '80',
        tracing: 'false',
        logRetentionDays: '7',
        malwareScan: 'true',
        alarmEmail: 'ops@example.com',
      }),
    ).toEqual({
      stage: 'staging',
      throttlingRateLimit: 50,
      throttlingBurstLimit: 80,
      tracing: false,
      logRetentionDays: 7,
      malwareScan: true,
      alarmEmail: 'ops@example.com',
    });
  });

  test.each([
    [{ stage: 'prod env' }, /stage/],
    [{ throttlingRateLimit: 'fast' }, /throttlingRateLimit/],
    [{ throttlingBurstLimit: '0' }, /throttlingBurstLimit/],
    [{ throttlingBurstLimit: '2.5' }, /throttlingBurstLimit/],
    [{ tracing: 'maybe' }, /tracing/],
    [{ malwareScan: 'maybe' }, /malwareScan/],
    [{ logRetentionDays: '10' }, /logRetentionDays/],
    [{ stage: 'prod' }, /^Stage prod needs an address for its alarms: add -c alarmEmail=ADDRESS/],
    [{ stage: 'staging', alarmEmail: '' }, /alarmEmail=ADDRESS/],
    [{ stage: 'prod', alarmEmail: 'oncall' }, /alarmEmail must be an email address/],
  ])('rejects %j', (context, message) => {
    expect(() => propsFor(context)).toThrow(message);
  });

  test('dev may have an alarm email too', () => {
    expect(propsFor({ alarmEmail: 'me@example.com' })).toMatchObject({ stage: 'dev', alarmEmail: 'me@example.com' });
  });
});

describe('cdk synth of a stage without alarmEmail', () => {
  test('fails with one line naming alarmEmail, before anything is built', async () => {
    // The app as `cdk synth -c stage=prod` runs it: the CLI hands the context over in CDK_CONTEXT_JSON.
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'),
        [path.join(REPO_ROOT, 'bin', 'app.ts')],
        {
          cwd: REPO_ROOT,
          env: {
            ...process.env,
            CDK_CONTEXT_JSON: JSON.stringify({ stage: 'prod' }),
            CDK_OUTDIR: fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-out-')),
          },
        },
        (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'Error: Stage prod needs an address for its alarms: add -c alarmEmail=ADDRESS (only stage dev may go without alarmEmail)',
    ]);
  }, 60_000);
});

describe('the default stage (dev), synthesized with tracing off', () => {
  let stubDir: string;
  let template: Template;
  let stack: ApiStack;

  beforeAll(() => {
    fs.mkdirSync(path.join(REPO_ROOT, '.cache'), { recursive: true });
    stubDir = fs.mkdtempSync(path.join(REPO_ROOT, '.cache', 'infra-test-handlers-'));
    for (const name of functionNames()) {
      fs.writeFileSync(handlerEntry(stubDir, name), 'export const handler = async () => ({});\n');
    }
    const app = new App({
      context: {
        'aws:cdk:bundling-stacks': [],
        tracing: 'false',
        logRetentionDays: '7',
      },
      // CDK's CloudFormation validation (seconds of CPU per process) is asserted in api-stack.test.ts.
      builtinCloudFormationValidation: false,
    });
    stack = new ApiStack(app, 'HrApi-dev', { ...apiStackPropsFromContext(app), functionsDir: stubDir });
    template = Template.fromStack(stack);
  });

  afterAll(() => {
    if (stubDir) fs.rmSync(stubDir, { recursive: true, force: true });
  });

  test('no active tracing and no X-Ray permissions', () => {
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.TracingConfig?.Mode).not.toBe('Active');
    }
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).not.toContain('xray:');
  });

  test('stage dev names the API and the dashboard and tags the resources; retention from context', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { Name: 'hr-api-dev', Tags: { stage: 'dev' } });
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'hr-api-dev' });
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      Tags: Match.arrayWith([{ Key: 'stage', Value: 'dev' }]),
    });
    for (const lg of Object.values(template.findResources('AWS::Logs::LogGroup')))
      expect(lg.Properties.RetentionInDays).toBe(7);
  });

  test('the same alarms on the topic, but nobody subscribed', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(3 * (ROUTES.length + 7) + 7 + 2 + 1 + 1 + 1 + 1 + 1);
    const topicId = stack.getLogicalId(stack.alarmTopic.node.defaultChild as CfnResource);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  test('cdk-nag AwsSolutions: no unacknowledged findings', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(report.violations.map((v) => v.ruleName)).toEqual([]);
  });
});

describe('handler files', () => {
  test('a missing handler fails the synth with the list of missing files', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const emptyDir = path.join(REPO_ROOT, '.cache', 'infra-test-no-handlers');
    expect(() => new ApiStack(app, 'Missing', { ...apiStackPropsFromContext(app), functionsDir: emptyDir })).toThrow(
      /Missing handler files[\s\S]*get-employee\.ts[\s\S]*route-not-found\.ts/,
    );
  });
});
