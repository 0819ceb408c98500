#!/usr/bin/env node
/**
 * CDK app: one ApiStack per stage, settings from context (cdk.json defaults,
 * override with `-c stage=staging -c throttlingRateLimit=50 ...`), cdk-nag's
 * AwsSolutions checks on everything (errors fail `cdk synth`/`cdk deploy`).
 */
import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApiStack, apiStackPropsFromContext } from '../lib/api-stack';

const app = new App();
const props = apiStackPropsFromContext(app);

new ApiStack(app, `HrApi-${props.stage}`, {
  ...props,
  description: `HR API (${props.stage}): HTTP API, one Lambda per route, DynamoDB single table`,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});

Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));

app.synth();
