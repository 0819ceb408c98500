#!/usr/bin/env node
/**
 * CDK app: one ApiStack per stage, settings from context (cdk.json defaults,
 * override with `-c stage=prod -c alarmEmail=ops@example.com ...`), cdk-nag's
 * AwsSolutions rules on everything. cdk-nag v3 is a CDK policy-validation
 * plugin: unacknowledged findings fail `cdk synth` / `cdk deploy` and are listed
 * in cdk.out/validation-report.json. Acknowledgments live in lib/api-stack.ts.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApiStack, ContextError, apiStackPropsFromContext, type ApiStackProps } from '../lib/api-stack';

const app = new App();
let props: ApiStackProps;
try {
  props = apiStackPropsFromContext(app);
} catch (error) {
  // A wrong or missing `-c` value: one line that names the key, not a stack trace.
  if (!(error instanceof ContextError)) throw error;
  console.error(`Error: ${error.message}`);
  process.exit(1);
}

new ApiStack(app, `HrApi-${props.stage}`, {
  ...props,
  description: `HR API (${props.stage}): HTTP API, one Lambda per route, DynamoDB single table`,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

app.synth();
