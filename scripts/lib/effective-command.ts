/**
 * `npm run admin -- effective run [--now DATETIME] [--business ID]` (contract
 * §26): writes the effective-date changes of every day that has begun in each
 * business's timezone and is not done yet (src/services/effective-dates.ts).
 * Prints one JSON line `{"updated": N}` on stdout, a line per day written on
 * stderr. Parsing is pure (checked before the tool connects anywhere).
 */
import { say, type AdminIo } from './admin-io';
import { parseRunCommand, type RunCommand } from './parse-command';
import { EffectiveRunFailed, runEffectiveDates, type EffectiveResult } from '../../src/services/effective-dates';

export const EFFECTIVE_USAGE = '       npm run admin -- effective run [--now DATETIME] [--business BUSINESS_ID]';

/** The command, or one line saying what is wrong with the arguments. */
export const parseEffectiveCommand = (argv: readonly string[], nowMs = Date.now()): RunCommand | string =>
  parseRunCommand('effective', argv, nowMs);

/** Runs it; returns the exit code. */
export async function effectiveCommand(command: RunCommand, io: AdminIo): Promise<number> {
  say(io.err, `effective: days begun by ${new Date(command.nowMs).toISOString()} in each business's timezone`);
  let result: EffectiveResult;
  try {
    result = await runEffectiveDates({
      nowMs: command.nowMs,
      ...(command.businessId !== undefined ? { businessId: command.businessId } : {}),
      onDay: (p) => say(io.err, `effective: ${p.businessId} ${p.day}: ${p.updated} updated`),
    });
  } catch (error) {
    if (!(error instanceof EffectiveRunFailed)) throw error;
    // What it wrote before failing still counts: the JSON line, then the failure (exit 1); a re-run resumes.
    say(io.err, `effective: ${error.message}; run it again to resume`);
    say(io.out, JSON.stringify({ updated: error.updated }));
    return 1;
  }
  say(io.err, `effective: done, ${result.updated} updated`);
  say(io.out, JSON.stringify({ updated: result.updated }));
  return 0;
}
