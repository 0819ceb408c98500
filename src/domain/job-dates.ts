/**
 * The employee fields derived from its jobs (contract §4) and the business's
 * calendar day they are relative to. Pure: the caller supplies `today`, so the
 * same stored jobs give different answers as days pass without any write.
 */

/** What the derivation needs of one job. */
export interface JobSpan {
  id: string;
  /** Creation order per employee: a job created later has a larger seq. */
  seq: number;
  /** YYYY-MM-DD */
  from: string;
  /** YYYY-MM-DD, inclusive; null = open-ended. */
  to: string | null;
  supervisor_id: string | null;
  location_id: string | null;
  department_id: string | null;
}

export interface DerivedJobFields {
  has_active_employee_job: boolean;
  has_active_or_future_employee_job: boolean;
  first_employee_job_from: string | null;
  first_employee_job_to: string | null;
  last_employee_job_from: string | null;
  last_employee_job_to: string | null;
  current_employee_job_from: string | null;
  current_employee_job_to: string | null;
  current_or_last_employee_job_from: string | null;
  current_or_last_employee_job_to: string | null;
  supervisor_id: string | null;
  location_id: string | null;
  department_id: string | null;
}

// YYYY-MM-DD compares correctly as a string, so no date parsing is needed.
const isActiveOn = (job: JobSpan, day: string): boolean => job.from <= day && (job.to === null || day <= job.to);

/** Ties on `from` go to the job created later, whichever end of the order is picked. */
const laterCreated = (a: JobSpan, b: JobSpan): JobSpan => (b.seq > a.seq ? b : a);

export function deriveJobFields(jobs: readonly JobSpan[], today: string): DerivedJobFields {
  let first: JobSpan | undefined;
  let last: JobSpan | undefined;
  let current: JobSpan | undefined;
  let hasFuture = false;

  for (const job of jobs) {
    if (!first || job.from < first.from) first = job;
    else if (job.from === first.from) first = laterCreated(first, job);

    if (!last || job.from > last.from) last = job;
    else if (job.from === last.from) last = laterCreated(last, job);

    if (isActiveOn(job, today)) {
      if (!current || job.from > current.from) current = job;
      else if (job.from === current.from) current = laterCreated(current, job);
    } else if (job.from > today) {
      hasFuture = true;
    }
  }

  const currentOrLast = current ?? last;
  return {
    has_active_employee_job: current !== undefined,
    has_active_or_future_employee_job: current !== undefined || hasFuture,
    first_employee_job_from: first?.from ?? null,
    first_employee_job_to: first?.to ?? null,
    last_employee_job_from: last?.from ?? null,
    last_employee_job_to: last?.to ?? null,
    current_employee_job_from: current?.from ?? null,
    current_employee_job_to: current?.to ?? null,
    current_or_last_employee_job_from: currentOrLast?.from ?? null,
    current_or_last_employee_job_to: currentOrLast?.to ?? null,
    supervisor_id: currentOrLast?.supervisor_id ?? null,
    location_id: currentOrLast?.location_id ?? null,
    department_id: currentOrLast?.department_id ?? null,
  };
}

// Building an Intl.DateTimeFormat costs far more than formatting with one, and
// every employee read asks for today; a business has one timezone, so the
// cache stays as small as the number of businesses a container serves.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      calendar: 'gregory',
      numberingSystem: 'latn',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** Today's calendar date (YYYY-MM-DD) in an IANA timezone. Throws RangeError for an unknown timezone. */
export function todayIn(timezone: string, now: Date = new Date()): string {
  // formatToParts rather than format(): the separator and field order of a
  // formatted string depend on the locale data the runtime ships.
  let year = '';
  let month = '';
  let day = '';
  for (const part of formatterFor(timezone).formatToParts(now)) {
    if (part.type === 'year') year = part.value;
    else if (part.type === 'month') month = part.value;
    else if (part.type === 'day') day = part.value;
  }
  return `${year.padStart(4, '0')}-${month}-${day}`;
}

/**
 * An IANA zone name the runtime knows (aliases such as `UTC` included).
 * Offset strings like `+01:00`, which newer runtimes accept as a timeZone,
 * are refused: a business's today must follow its zone's DST rules.
 */
export function isValidTimezone(tz: string): boolean {
  if (typeof tz !== 'string' || !/^[A-Za-z]/.test(tz)) return false;
  try {
    formatterFor(tz);
    return true;
  } catch {
    return false;
  }
}
