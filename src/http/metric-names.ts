/** Names shared by the functions' EMF metrics (src/http/metrics.ts) and the dashboard (lib/constructs/monitoring.ts). */
export const METRICS_NAMESPACE = 'HrApi';

/** The route group of requests no route matched (the $default fallback). */
export const UNMATCHED_ROUTE_GROUP = 'Unmatched';

/**
 * Requests refused with 429 rate_limited (contract §18): per business (dimension `business_id`, the dashboard's
 * top talkers) and for the whole service (the alarm).
 */
export const RATE_LIMITED_METRIC = 'RateLimited';

/** Uploads the post-upload check rejected (functions/check-attachment.ts); the alarm on rejected uploads watches it. */
export const REJECTED_UPLOADS_METRIC = 'RejectedUploads';

/** Checks that kept failing (functions/check-attachment.ts): an upload left pending; the alarm on failed checks watches it. */
export const FAILED_CHECKS_METRIC = 'FailedAttachmentChecks';

/** Imports that ended as failed (functions/run-import.ts, contract §22); the alarm on failed imports watches it. */
export const FAILED_IMPORTS_METRIC = 'FailedImports';
/** Imports ended as run_failed: their runs kept failing, or the watchdog found them without progress. */
export const STALLED_IMPORTS_METRIC = 'StalledImports';
