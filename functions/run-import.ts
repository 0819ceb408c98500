/**
 * The run of a bulk import (contract §22; not an API route): the bucket's
 * object-created notifications for `imports/uploads/` invoke it
 * (lib/api-stack.ts); a run that reaches its time limit invokes the function
 * again with `{"resume": {businessId, id}}` and the next run goes on from
 * the checkpoint. A run that fails is run again (RUN_ATTEMPTS, from the
 * checkpoint); one that keeps failing ends the import as `run_failed`. A
 * schedule invokes it with `{"watch": true}`: the watchdog ends imports
 * whose progress stopped (src/services/import-run.ts watchImports). The
 * local server runs the same handler on the local S3 server's events and
 * its periodic work (scripts/local-server.ts), a run to the end in one process.
 */
import type { Context, S3Event } from 'aws-lambda';
import { importOfUploadKey } from '../src/services/import-worker';
import { LANGUAGES, type Language } from '../src/http/i18n/messages';
import { translateFields } from '../src/http/i18n/language';
import { logger } from '../src/http/logger';
import { recordFailedImport, recordStalledImport } from '../src/http/metrics';
import { inCallScope } from '../src/services/job-runtime';
import { importRunShare, invokeNextRun } from '../src/services/import-worker';
import {
  IMPORT_WORKER_NAME,
  failImport,
  runImport,
  watchImports,
  type RunOptions,
  type RunOutcome,
} from '../src/services/import-run';

type ResumeEvent = { resume: { businessId: string; id: string } };
type WatchEvent = { watch: true };

/** Runs of one import tried in one invocation before it ends as run_failed; the pause after the n-th failure. */
const RUN_ATTEMPTS = 3;
const PAUSE_MS = 1_000;
/** What a run needs at least: with less time left, the next invocation takes over. */
const MIN_RUN_MS = 30_000;

const translate: RunOptions['translate'] = (fields, language) =>
  translateFields(fields, (LANGUAGES as readonly string[]).includes(language) ? (language as Language) : 'en');

/** Runs one import as far as `context` allows (without a context: to its end), then hands over if need be. */
async function run(ref: { businessId: string; id: string }, context?: Context): Promise<void> {
  const timeLeftMs = context ? () => context.getRemainingTimeInMillis() : undefined;
  for (let failures = 0; ;) {
    let outcome: RunOutcome;
    try {
      outcome = await inCallScope(IMPORT_WORKER_NAME, () =>
        runImport(ref.businessId, ref.id, {
          translate,
          share: importRunShare(),
          ...(timeLeftMs ? { timeLeftMs } : {}),
        }),
      );
    } catch (error) {
      failures += 1;
      const pause = PAUSE_MS * failures;
      const fields = { business_id: ref.businessId, import_id: ref.id, attempt: failures, error: error as Error };
      if (failures < RUN_ATTEMPTS && (timeLeftMs?.() ?? Infinity) >= pause + MIN_RUN_MS) {
        logger.warn('import run failed: run again from its checkpoint', fields);
        await new Promise((resolve) => setTimeout(resolve, pause));
        continue;
      }
      if (failures < RUN_ATTEMPTS && context) return invokeNextRun(context.functionName, ref);
      logger.error('import run kept failing: the import ends as run_failed', fields);
      if (await inCallScope(IMPORT_WORKER_NAME, () => failImport(ref.businessId, ref.id))) {
        recordFailedImport();
        recordStalledImport();
      }
      return;
    }
    logger.info('import run', { business_id: ref.businessId, import_id: ref.id, outcome: outcome.outcome });
    if (outcome.outcome === 'finished' && outcome.status === 'failed') recordFailedImport();
    if (outcome.outcome !== 'paused') return;
    if (context) return invokeNextRun(context.functionName, ref);
  }
}

/** The watchdog's round: imports without progress end as run_failed (logged at ERROR, counted: the stack alarms). */
async function watch(): Promise<void> {
  const ended = await inCallScope(IMPORT_WORKER_NAME, () => watchImports());
  for (const { businessId, id, reason } of ended) {
    recordFailedImport();
    if (reason !== 'run_failed') {
      logger.info('import ended by the watchdog', { business_id: businessId, import_id: id, reason });
      continue;
    }
    recordStalledImport();
    logger.error('import without progress ended as run_failed by the watchdog', {
      business_id: businessId,
      import_id: id,
    });
  }
}

export async function handler(event: S3Event | ResumeEvent | WatchEvent, context?: Context): Promise<void> {
  if ('watch' in event) return watch();
  if ('resume' in event) return run(event.resume, context);
  for (const record of event.Records ?? []) {
    if (!record.eventName?.startsWith('ObjectCreated:')) continue;
    // S3 sends the key URL-encoded, spaces as '+'.
    const ref = importOfUploadKey(decodeURIComponent(record.s3.object.key.replace(/\+/g, ' ')));
    if (ref) await run(ref, context);
  }
}
