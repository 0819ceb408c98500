/**
 * What the import run's function (functions/run-import.ts) needs beside the run
 * itself (src/services/import-run.ts): which import an uploaded object starts,
 * and how a run that reached its time limit hands over to the next invocation.
 */
export { importOfUploadKey } from '../domain/imports';
export { invokeNextRun } from '../data/import-continuation';
export { importRunShare } from '../data/config';
