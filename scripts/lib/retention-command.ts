/**
 * `npm run admin -- retention run [--now DATETIME] [--business ID]` (contract
 * §17): erases every application whose updated_at is older than its
 * business's application_retention_days (src/services/retention.ts). Prints
 * one JSON line `{"erased": N}` on stdout; progress goes to stderr, as one
 * live line on a terminal and as a line per batch otherwise. Parsing is pure
 * (checked before the tool connects anywhere).
 */
import { say, type AdminIo } from './admin-io';
import { parseCommandArgs } from './parse-command';
import {
  RetentionFailed,
  runRetention,
  type RetentionProgress,
  type RetentionResult,
} from '../../src/services/retention';

export const RETENTION_USAGE = '       npm run admin -- retention run [--now DATETIME] [--business BUSINESS_ID]';

export interface RetentionCommand {
  /** Epoch ms the run pretends it is. */
  readonly nowMs: number;
  readonly businessId?: string;
}

/** The command, or one line saying what is wrong with the arguments. */
export function parseRetentionCommand(argv: readonly string[], nowMs = Date.now()): RetentionCommand | string {
  const parsed = parseCommandArgs(argv, { now: { type: 'string' }, business: { type: 'string' } });
  if (typeof parsed === 'string') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'run') return 'retention: the only subcommand is run';
  let now = nowMs;
  if (values.now !== undefined) {
    // A full date-time with a zone, or a date (midnight UTC): never a local-time guess.
    const ok = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(values.now);
    now = ok ? Date.parse(values.now) : Number.NaN;
    if (!Number.isFinite(now))
      return `retention: --now must be an ISO 8601 date-time with zone (2026-11-23T12:00:00Z) or a date, got ${JSON.stringify(values.now)}`;
  }
  if (values.business !== undefined && values.business.trim() === '') return 'retention: --business needs an id';
  return { nowMs: now, ...(values.business !== undefined ? { businessId: values.business } : {}) };
}

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
