/**
 * How the export functions start a worker run: deployed (EXPORT_QUEUE_URL set
 * by CDK) a queue message to functions/run-export.ts. The local server and the
 * tests plug in an in-process launcher instead (src/services/exports.ts).
 */
import { exportQueueUrl } from '../data/config';
import { queueExportRun } from '../data/export-queue';
import { useExportLauncher } from './exports';

if (exportQueueUrl()) useExportLauncher(queueExportRun);
