/**
 * What the functions outside the route table (scheduled jobs, queue workers,
 * the upload check) need of the data layer, so that functions/ import
 * src/http and src/services only: a deadline for their DynamoDB calls (the
 * http layer gives a request its own, src/http/request-context.ts), the route
 * their calls are attributed to, and the queues they hand work on through.
 */
export { remainingMs, runWithDeadline } from '../data/deadline';
export { inCallScope } from '../data/dynamo/call-scope';
export { webhookRetryQueueUrl } from '../data/config';
export { queueExportRun } from '../data/export-queue';
