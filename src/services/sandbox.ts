/**
 * Sandbox businesses (contract §24): `<business>-sandbox` has the locales,
 * timezone, limits and reference data of `<business>` and none of its
 * records; the admin tool fills it with generated people
 * (scripts/lib/sandbox-command.ts). Nothing here reads or writes a record of
 * `<business>`: only its config and reference records are read.
 *
 * A reset empties the sandbox's records (src/data/sandbox-store.ts) before
 * the refill and restarts its change feed, so a client syncing the sandbox
 * gets `410 cursor_expired` for any cursor from before the reset and starts
 * over (docs/change-feed.md, "Sandbox reset").
 */
import type { BusinessConfig } from '../domain/business';
import { business } from '../data/entities/business';
import { configOf, importBusiness, readReferenceRecords } from '../data/business-store';
import {
  deleteExportsImportsSubscriptions,
  deleteFeedEntries,
  deleteLists,
  deleteRecords,
  readRecords,
  restartFeed,
} from '../data/sandbox-store';
import { batchGet } from '../data/dynamo/table-io';
import { eraseAttachments } from './attachments';

export const SANDBOX_SUFFIX = '-sandbox';

/** Why a sandbox cannot be made: one line for the operator. */
export class SandboxRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxRefused';
  }
}

/** The sandbox's config: the live business's, under its own id and name, marked as a sandbox of it. */
export function sandboxConfigOf(live: BusinessConfig, generation: number): BusinessConfig {
  return {
    ...live,
    id: `${live.id}${SANDBOX_SUFFIX}`,
    name: `${live.name} (sandbox)`,
    sandbox: { of: live.id, generation },
  };
}

export interface SandboxState {
  /** The sandbox's config as now stored. */
  readonly config: BusinessConfig;
  /** It did not exist before. */
  readonly created: boolean;
  /** The job openings whose application lists it may hold (its former ones and the live business's). */
  readonly jobOpeningIds: readonly string[];
}

/**
 * Makes `<business>-sandbox` (or, with `reset`, starts its next generation):
 * copies the live business's config and reference data into it. Refuses a
 * business that does not exist or is itself a sandbox, and a `-sandbox`
 * business that is not a sandbox of this one (never emptied by mistake).
 */
export async function copyToSandbox(liveId: string, reset: boolean): Promise<SandboxState> {
  const sandboxId = `${liveId}${SANDBOX_SUFFIX}`;
  const [liveItem, sandboxItem] = await batchGet([business.configKey(liveId), business.configKey(sandboxId)]);
  const live = configOf(liveItem);
  if (!live) throw new SandboxRefused(`business ${liveId} does not exist`);
  if (live.sandbox) throw new SandboxRefused(`business ${liveId} is a sandbox (of ${live.sandbox.of})`);
  const existing = configOf(sandboxItem);
  if (existing && existing.sandbox?.of !== liveId)
    throw new SandboxRefused(`business ${sandboxId} exists and is not a sandbox of ${liveId}: nothing changed`);
  const generation = (existing?.sandbox?.generation ?? 0) + (existing && !reset ? 0 : 1);
  const config = sandboxConfigOf(live, generation);
  await importBusiness(config, await readReferenceRecords(liveId));
  const jobOpeningIds = [...new Set([...(existing?.job_opening_ids ?? []), ...config.job_opening_ids])];
  return { config, created: !existing, jobOpeningIds };
}

export interface EmptiedSandbox {
  readonly records: number;
  readonly feedEntries: number;
}

/**
 * Deletes every record of a sandbox and what they own (attachments with their
 * bytes included), then restarts its change feed and deletes the entries
 * before the restart. Only for a business whose config says it is a sandbox.
 * Reads and updates racing it get their usual answers (an update of a
 * deleted record: 404); a record created while it runs may survive it.
 */
export async function emptySandbox(sandbox: SandboxState, now = Date.now()): Promise<EmptiedSandbox> {
  const { config } = sandbox;
  if (!config.sandbox) throw new SandboxRefused(`business ${config.id} is not a sandbox: nothing deleted`);
  const id = config.id;
  let records = 0;
  const applications = await readRecords(id, 'application');
  for (const app of applications) await eraseAttachments(id, String(app.id));
  await deleteRecords(id, applications);
  records += applications.length;
  for (const kind of ['employee_job', 'employee'] as const) {
    const items = await readRecords(id, kind);
    await deleteRecords(id, items);
    records += items.length;
  }
  await deleteLists(id, sandbox.jobOpeningIds);
  // After the records: an update that committed before its record was deleted has its entry before the gap.
  const gaps = await restartFeed(id, now);
  const feedEntries = await deleteFeedEntries(id, gaps);
  await deleteExportsImportsSubscriptions(id);
  return { records, feedEntries };
}
