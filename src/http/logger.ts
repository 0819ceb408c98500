import type { Logger } from '@aws-lambda-powertools/logger';
import { logLevel, serviceName } from '../data/config';

let built: Logger | undefined;

/**
 * The Powertools module loaded and its Logger built on first use, not at init: the two were 3.5 % of a bare
 * DocumentClient's init (`npm run bench:cold -- --parts`), most of it the Console on stdout the Logger opens.
 */
function instance(): Logger {
  if (!built) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Logger: PowertoolsLogger } = require('./powertools-logger') as typeof import('./powertools-logger');
    built = new PowertoolsLogger({ serviceName: serviceName(), logLevel: logLevel() });
  }
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
