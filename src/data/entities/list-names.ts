/**
 * The name of every dense list (docs/pagination.md): it names the list's
 * counter (`keys.counter`) and its position maps (`keys.listMap`). Declared
 * here only, so a writer and a reader of a list cannot disagree on it.
 */
import type { RecordKind } from '../keys';

export const LIST = {
  applications: 'applications',
  /** The applications in the order of their last write (updated_at ascending). */
  applicationsUpdated: 'applications-updated',
  /** The applications of one job opening (speculative = no job). */
  applicationsOfJob: (jobId: string | null): string =>
    jobId === null ? 'applications-speculative' : `applications-of-job:${jobId}`,
  employees: 'employees',
  employeeJobs: 'employee_jobs',
  /** The list of one kind of reference record (locations, payout fields, ...). */
  reference: (kind: RecordKind): string => `${kind}s`,
} as const;
