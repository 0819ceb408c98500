import { Logger } from '@aws-lambda-powertools/logger';

/** One structured JSON logger per process; request and business ids are appended per request. */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'hr-api',
  logLevel:
    (process.env.POWERTOOLS_LOG_LEVEL as 'INFO' | undefined) ?? (process.env.NODE_ENV === 'test' ? 'SILENT' : 'INFO'),
});
