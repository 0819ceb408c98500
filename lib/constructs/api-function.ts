import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_SETTINGS } from './function-settings';
import { functionAlarms } from './monitoring';

/** What every API function shares in CDK's types; its plain numbers are FUNCTION_SETTINGS (function-settings.ts). */
const FUNCTION_DEFAULTS = {
  runtime: lambda.Runtime.NODEJS_22_X,
  architecture: lambda.Architecture.ARM_64,
  timeout: Duration.seconds(FUNCTION_SETTINGS.timeoutSeconds),
} as const;

/**
 * The esbuild settings of every API function, shared with `npm run bench:cold`
 * (scripts/bench-cold-start.ts), which bundles with exactly these to measure
 * size and init time.
 */
export const BUNDLING = {
  minify: true,
  sourceMap: false,
  target: FUNCTION_SETTINGS.target,
  format: OutputFormat.CJS,
  // ES module entries first: the AWS SDK's dist-es tree-shakes, its CommonJS dist does not.
  mainFields: ['module', 'main'],
  // Bundle the AWS SDK: a pinned, tree-shaken copy instead of whatever the runtime ships.
  externalModules: [],
  bundleAwsSDK: true,
  // @middy/core imports node:stream/web at load, for streamed responses only: loaded when first used instead
  // (src/http/stream-web-on-demand.cjs). The path is relative to projectRoot, where CDK runs esbuild locally.
  esbuildArgs: { '--alias': 'node:stream/web=./src/http/stream-web-on-demand.cjs' },
} satisfies BundlingOptions;

export interface ApiFunctionProps {
  /** Absolute path of the handler file (exports `handler`). */
  readonly entry: string;
  /** Directory holding package-lock.json; esbuild runs from here. */
  readonly projectRoot: string;
  readonly description: string;
  readonly environment?: Record<string, string>;
  readonly logRetention: logs.RetentionDays;
  /** X-Ray active tracing. */
  readonly tracing: boolean;
  /** Where the function's alarms notify; none = alarms only in the console. */
  readonly alarmAction?: cloudwatch.IAlarmAction;
  readonly memorySize?: number;
  readonly timeout?: Duration;
  /** Extra bundling steps (get-docs ships the Redoc renderer next to its handler). */
  readonly commandHooks?: ICommandHooks;
}

/**
 * One API Lambda function with its defaults (in the spirit of Powertools'
 * examples/app `FunctionWithLogGroup`):
 * - an explicit LogGroup with a retention (no CDK log-retention custom resource),
 * - its own role that may only write to that log group (no AWSLambdaBasicExecutionRole,
 *   table permissions are granted by the caller),
 * - the AWS SDK bundled (no reliance on the runtime's copy),
 * - an Errors, a Throttles and a p99 Duration alarm (lib/constructs/monitoring.ts).
 */
export class ApiFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: logs.LogGroup;
  readonly role: iam.Role;
  readonly errorsAlarm: cloudwatch.Alarm;
  readonly throttlesAlarm: cloudwatch.Alarm;
  readonly durationAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention,
      // Operational logs expire with their retention anyway; the table is the durable data.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role: ${props.description}`,
    });
    // logs:CreateLogStream + logs:PutLogEvents on this function's log group only.
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: `${props.projectRoot}/package-lock.json`,
      description: props.description,
      runtime: FUNCTION_DEFAULTS.runtime,
      architecture: FUNCTION_DEFAULTS.architecture,
      memorySize: props.memorySize ?? FUNCTION_SETTINGS.memorySize,
      timeout: props.timeout ?? FUNCTION_DEFAULTS.timeout,
      role: this.role,
      logGroup: this.logGroup,
      tracing: props.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      environment: props.environment,
      bundling: { ...BUNDLING, ...(props.commandHooks ? { commandHooks: props.commandHooks } : {}) },
    });

    const timeout = props.timeout ?? FUNCTION_DEFAULTS.timeout;
    const alarms = functionAlarms(this, this.function, timeout, props.description);
    this.errorsAlarm = alarms.errors;
    this.throttlesAlarm = alarms.throttles;
    this.durationAlarm = alarms.duration;
    if (props.alarmAction) {
      for (const alarm of Object.values(alarms)) alarm.addAlarmAction(props.alarmAction);
    }
  }
}
