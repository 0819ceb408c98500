import { Logger } from '@aws-lambda-powertools/logger';
import { logLevel, serviceName } from '../data/config';

/** One structured JSON logger per process; request and business ids are appended per request. */
export const logger = new Logger({
  serviceName: serviceName(),
  logLevel: logLevel(),
});
