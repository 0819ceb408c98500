/**
 * `npm run admin -- retention run [--now DATETIME] [--business ID]` (contract
 * §17): erases every application whose updated_at is older than its
 * business's application_retention_days (src/services/retention.ts). Prints
 * one JSON line `{"erased": N}` on stdout; progress goes to stderr, as one
 * live line on a terminal and as a line per batch otherwise. Parsing is pure
 * (checked before the tool connects anywhere).
 */
import { say, type AdminIo } from './admin-io';
import { parseRunCommand, type RunCommand } from './parse-command';
import {
  RetentionFailed,
  runRetention,
  type RetentionProgress,
  type RetentionResult,
} from '../../src/services/retention';

export const RETENTION_USAGE = '       npm run admin -- retention run [--now DATETIME] [--business BUSINESS_ID]';

export type RetentionCommand = RunCommand;

/** The command, or one line saying what is wrong with the arguments. */
export const parseRetentionCommand = (argv: readonly string[], nowMs = Date.now()): RetentionCommand | string =>
  parseRunCommand('retention', argv, nowMs);

const describe = (p: RetentionProgress): string =>
  `retention: business ${p.businessIndex + 1}/${p.businesses} ${p.businessId}: ${p.examined} examined, ${p.erased} erased in this run`;

/** Runs it; returns the exit code. */
export async function retentionCommand(command: RetentionCommand, io: AdminIo): Promise<number> {
  const live = io.err.isTTY === true;
  say(
    io.err,
    `retention: due = updated_at before (now - application_retention_days), now = ${new Date(command.nowMs).toISOString()}`,
  );
  let result: RetentionResult;
  try {
    result = await runRetention({
      nowMs: command.nowMs,
      ...(command.businessId !== undefined ? { businessId: command.businessId } : {}),
      onProgress: (p) => {
        if (live) io.err.write(`\r\x1b[2K${describe(p)}`);
        else say(io.err, describe(p));
      },
    });
  } catch (error) {
    if (!(error instanceof RetentionFailed)) throw error;
    // What it erased before failing still counts: the JSON line, then the failure (exit 1); a re-run resumes.
    if (live) io.err.write('\n');
    say(io.err, `retention: ${error.message}; run it again to resume`);
    say(io.out, JSON.stringify({ erased: error.erased }));
    return 1;
  }
  if (live) io.err.write('\n');
  say(io.err, `retention: done, ${result.erased} erased`);
  say(io.out, JSON.stringify({ erased: result.erased }));
  return 0;
}
