/**
 * The run of a bulk import (contract §22; not an API route): the bucket's
 * object-created notifications for `imports/uploads/` invoke it
 * (lib/api-stack.ts); a run that reaches its time limit invokes the function
 * again with `{"resume": {businessId, id}}` and the next run goes on from
 * the checkpoint. The local server runs the same handler on the local S3
 * server's events (scripts/local-server.ts), to the end in one process.
 */
import type { Context, S3Event } from 'aws-lambda';
import { importOfUploadKey } from '../src/domain/imports';
import { LANGUAGES, type Language } from '../src/http/i18n/messages';
import { translateFields } from '../src/http/i18n/language';
import { logger } from '../src/http/logger';
import { recordFailedImport } from '../src/http/metrics';
import { inCallScope } from '../src/data/call-scope';
import { invokeNextRun } from '../src/data/import-continuation';
import { IMPORT_WORKER_NAME, runImport, type RunOptions } from '../src/services/import-run';

type ResumeEvent = { resume: { businessId: string; id: string } };

const translate: RunOptions['translate'] = (fields, language) =>
  translateFields(fields, (LANGUAGES as readonly string[]).includes(language) ? (language as Language) : 'en');

/** Runs one import as far as `context` allows (without a context: to its end), then hands over if need be. */
async function run(ref: { businessId: string; id: string }, context?: Context): Promise<void> {
  const timeLeftMs = context ? () => context.getRemainingTimeInMillis() : undefined;
  for (;;) {
    const outcome = await inCallScope(IMPORT_WORKER_NAME, () =>
      runImport(ref.businessId, ref.id, { translate, ...(timeLeftMs ? { timeLeftMs } : {}) }),
    );
    logger.info('import run', { business_id: ref.businessId, import_id: ref.id, outcome: outcome.outcome });
    if (outcome.outcome === 'finished' && outcome.status === 'failed') recordFailedImport();
    if (outcome.outcome !== 'paused') return;
    if (context) return invokeNextRun(context.functionName, ref);
  }
}

export async function handler(event: S3Event | ResumeEvent, context?: Context): Promise<void> {
  if ('resume' in event) return run(event.resume, context);
  for (const record of event.Records ?? []) {
    if (!record.eventName?.startsWith('ObjectCreated:')) continue;
    // S3 sends the key URL-encoded, spaces as '+'.
    const ref = importOfUploadKey(decodeURIComponent(record.s3.object.key.replace(/\+/g, ' ')));
    if (ref) await run(ref, context);
  }
}
