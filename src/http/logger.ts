import { Logger } from '@aws-lambda-powertools/logger';
import type { LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import { logLevel, serviceName } from '../data/config';

let built: Logger | undefined;

/**
 * Built on first use, not at init: building it (a Console on stdout, its settings from the environment) was 2 % of
 * a bare DocumentClient's init (`npm run bench:cold -- --instructions`). The module itself is loaded at init: loaded
 * on first use too, it took 0.7 % more off the init but added 0.9 % to init and first request together (code that
 * runs later is parsed twice), and nearly every request logs.
 */
function instance(): Logger {
  built ??= new Logger({ serviceName: serviceName(), logLevel: logLevel() });
  return built;
}

/**
 * One structured JSON logger per process; request and business ids are appended per request. The methods in use,
 * each building the logger on its first call (a method more is a line more here).
 */
export const logger = {
  debug: (input: LogItemMessage, ...extra: LogItemExtraInput): void => instance().debug(input, ...extra),
  info: (input: LogItemMessage, ...extra: LogItemExtraInput): void => instance().info(input, ...extra),
  warn: (input: LogItemMessage, ...extra: LogItemExtraInput): void => instance().warn(input, ...extra),
  error: (input: LogItemMessage, ...extra: LogItemExtraInput): void => instance().error(input, ...extra),
  addContext: (context: Parameters<Logger['addContext']>[0]): void => instance().addContext(context),
  appendKeys: (keys: Parameters<Logger['appendKeys']>[0]): void => instance().appendKeys(keys),
  resetKeys: (): void => instance().resetKeys(),
  setLogLevel: (level: Parameters<Logger['setLogLevel']>[0]): void => instance().setLogLevel(level),
};
