/**
 * The name of every dense list (docs/pagination.md): it names the list's
 * counter (`keys.counter`) and its position maps (`keys.listMap`). Declared
 * here only, so a writer and a reader of a list cannot disagree on it.
 */
import type { RecordKind } from '../dynamo/keys';

export const LIST = {
  employees: 'employees',
  employeeJobs: 'employee_jobs',
  /** The list of one kind of reference record (locations, payout fields, ...). */
  reference: (kind: RecordKind): string => `${kind}s`,
} as const;
