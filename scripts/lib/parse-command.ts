/**
 * How every admin subcommand reads its arguments: strict options plus
 * positionals, and a thrown parse error (unknown option, missing value)
 * becomes the one line the tool prints before exiting 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<O extends Options>(
  argv: readonly string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: O }>> | string {
  try {
    return parseArgs({ args: [...argv], allowPositionals: true, strict: true, options });
  } catch (error) {
    return (error as Error).message;
  }
}

/** A job's `run [--now DATETIME] [--business ID]` (retention, effective): what time to pretend, which business. */
export interface RunCommand {
  /** Epoch ms the run pretends it is. */
  readonly nowMs: number;
  readonly businessId?: string;
}

/** `<job> run [--now DATETIME] [--business ID]`, or one line saying what is wrong with the arguments. */
export function parseRunCommand(job: string, argv: readonly string[], nowMs = Date.now()): RunCommand | string {
  const parsed = parseCommandArgs(argv, { now: { type: 'string' }, business: { type: 'string' } });
  if (typeof parsed === 'string') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'run') return `${job}: the only subcommand is run`;
  let now = nowMs;
  if (values.now !== undefined) {
    // A full date-time with a zone, or a date (midnight UTC): never a local-time guess.
    const ok = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(values.now);
    now = ok ? Date.parse(values.now) : Number.NaN;
    if (!Number.isFinite(now))
      return `${job}: --now must be an ISO 8601 date-time with zone (2026-11-23T12:00:00Z) or a date, got ${JSON.stringify(values.now)}`;
  }
  if (values.business !== undefined && values.business.trim() === '') return `${job}: --business needs an id`;
  return { nowMs: now, ...(values.business !== undefined ? { businessId: values.business } : {}) };
}
