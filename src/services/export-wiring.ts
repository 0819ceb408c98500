/**
 * How the export functions start a worker run: deployed (EXPORT_QUEUE_URL set
 * by CDK) a queue message to functions/run-export.ts; otherwise in-process,
 * the default of src/services/exports.ts (the local server sets its own at start).
 */
import { exportQueueUrl } from '../data/config';
import { queueExportRun } from '../data/export-queue';
import { useExportLauncher } from './exports';

if (exportQueueUrl()) useExportLauncher(queueExportRun);
