/**
 * Every entity module, in the order docs/architecture.md's access-pattern
 * table lists them (test/unit/architecture-doc.test.ts checks the table
 * against these declarations).
 */
import { application } from './application';
import { attachment } from './attachment';
import { business } from './business';
import { employee, employeeJob } from './employee';
import { exportJob } from './export-job';
import { feedLane } from './feed-lane';
import { importJob } from './import-job';
import { reference } from './reference';
import { rateCounter } from './rate-counter';
import { token } from './token';
import { webhookSubscription } from './webhook-subscription';
import type { Entity } from './entity';

export const ENTITIES: readonly Entity[] = [
  application,
  attachment,
  employee,
  employeeJob,
  reference,
  business,
  webhookSubscription,
  token,
  feedLane,
  rateCounter,
  exportJob,
  importJob,
];
