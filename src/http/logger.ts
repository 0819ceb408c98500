import { Logger } from '@aws-lambda-powertools/logger';
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

/** One structured JSON logger per process; request and business ids are appended per request. */
export const logger: Logger = new Proxy({} as Logger, {
  get(_target, key) {
    const target = instance();
    const value: unknown = Reflect.get(target, key, target);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  },
});
