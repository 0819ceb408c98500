/**
 * Stack settings from CDK context: defaults, `-c key=value` strings, validation,
 * and one synthesized variant (tracing off, other stage) to see the settings land.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import {
  ApiStack,
  CONTEXT_DEFAULTS,
  DISPATCHER,
  REPO_ROOT,
  apiStackPropsFromContext,
  handlerEntry,
} from '../../lib/api-stack';
import { FALLBACK_ROUTE, ROUTES } from '../../src/http/routes';

const propsFor = (context: Record<string, unknown>) => apiStackPropsFromContext(new App({ context }));

describe('apiStackPropsFromContext', () => {
  test('defaults when the context is empty', () => {
    expect(propsFor({})).toEqual({
      stage: 'prod',
      throttlingRateLimit: 100,
      throttlingBurstLimit: 200,
      tracing: true,
      logRetentionDays: 30,
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
        alarmEmail: 'ops@example.com',
      }),
    ).toEqual({
      stage: 'staging',
      throttlingRateLimit: 50,
      throttlingBurstLimit: 80,
      tracing: false,
      logRetentionDays: 7,
      alarmEmail: 'ops@example.com',
    });
  });

  test.each([
    [{ stage: 'prod env' }, /stage/],
    [{ throttlingRateLimit: 'fast' }, /throttlingRateLimit/],
    [{ throttlingBurstLimit: '0' }, /throttlingBurstLimit/],
    [{ throttlingBurstLimit: '2.5' }, /throttlingBurstLimit/],
    [{ tracing: 'maybe' }, /tracing/],
    [{ logRetentionDays: '10' }, /logRetentionDays/],
  ])('rejects %j', (context, message) => {
    expect(() => propsFor(context)).toThrow(message);
  });
});

describe('a stack synthesized with tracing off', () => {
  let stubDir: string;
  let template: Template;
  let stack: ApiStack;

  beforeAll(() => {
    fs.mkdirSync(path.join(REPO_ROOT, '.cache'), { recursive: true });
    stubDir = fs.mkdtempSync(path.join(REPO_ROOT, '.cache', 'infra-test-handlers-'));
    for (const name of [...ROUTES.map((r) => r.name), FALLBACK_ROUTE.name, DISPATCHER.name]) {
      fs.writeFileSync(handlerEntry(stubDir, name), 'export const handler = async () => ({});\n');
    }
    const app = new App({
      context: {
        'aws:cdk:bundling-stacks': [],
        stage: 'staging',
        tracing: 'false',
        logRetentionDays: '7',
        alarmEmail: 'ops@example.com',
      },
    });
    stack = new ApiStack(app, 'HrApi-staging', { ...apiStackPropsFromContext(app), functionsDir: stubDir });
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

  test('stage name and retention from context; alarm email subscribed', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { Name: 'hr-api-staging' });
    for (const lg of Object.values(template.findResources('AWS::Logs::LogGroup')))
      expect(lg.Properties.RetentionInDays).toBe(7);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
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
