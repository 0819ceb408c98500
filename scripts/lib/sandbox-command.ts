/**
 * `npm run admin -- business sandbox BUSINESS_ID [--reset] [--employees N]
 * [--applications N]` (contract §24): makes `BUSINESS_ID-sandbox` with the
 * business's locales, timezone, limits and reference data and none of its
 * records, fills it with generated people (the demo's generator,
 * scripts/lib/people-generator.ts, through the bulk import's row applier) and
 * prints, as its last line, `{"business_id": "...-sandbox", "token": "..."}`.
 * Run again, it copies the reference data again and keeps its people;
 * `--reset` empties it (restarting its change feed) and refills it.
 * Parsing is pure (checked before the tool connects anywhere).
 */
import { say, type AdminIo } from './admin-io';
import { parseCommandArgs } from './parse-command';
import { generatePeople } from './people-generator';
import { ADMIN_ORIGIN } from '../../src/domain/audit';
import { todayIn } from '../../src/domain/job-dates';
import { issueToken } from '../../src/data/token-store';
import { importPeople } from '../../src/services/people-import';
import { copyToSandbox, emptySandbox, SandboxRefused } from '../../src/services/sandbox';

export const SANDBOX_USAGE =
  '       npm run admin -- business sandbox BUSINESS_ID [--reset] [--employees N] [--applications N]';

/** The demo's sizes (contract §24); a test asks for fewer. */
const DEFAULT_EMPLOYEES = 120;
const DEFAULT_APPLICATIONS = 600;
const MAX_PEOPLE = 10_000;
/** Every generation of every sandbox draws the same people for the same day: a reset is reproducible. */
const SANDBOX_SEED = 24;

export interface SandboxCommand {
  readonly businessId: string;
  readonly reset: boolean;
  readonly employees: number;
  readonly applications: number;
}

/** The command, or one line saying what is wrong with the arguments. */
export function parseSandboxCommand(argv: readonly string[]): SandboxCommand | string {
  const parsed = parseCommandArgs(argv, {
    reset: { type: 'boolean' },
    employees: { type: 'string' },
    applications: { type: 'string' },
  });
  if (typeof parsed === 'string') return parsed;
  const { values, positionals } = parsed;
  const [sub, businessId, extra] = positionals;
  if (sub !== 'sandbox') return `business: the only subcommand is sandbox, got ${sub ?? '(none)'}`;
  if (!businessId) return 'business sandbox: BUSINESS_ID is required';
  if (extra !== undefined) return `business sandbox: unexpected argument ${extra}`;
  const count = (name: 'employees' | 'applications', fallback: number): number | string => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    return n >= 0 && n <= MAX_PEOPLE ? n : `business sandbox: --${name} must be a whole number from 0 to ${MAX_PEOPLE}`;
  };
  const employees = count('employees', DEFAULT_EMPLOYEES);
  const applications = count('applications', DEFAULT_APPLICATIONS);
  if (typeof employees === 'string') return employees;
  if (typeof applications === 'string') return applications;
  return { businessId, reset: values.reset === true, employees, applications };
}

/** Runs it; returns the exit code. */
export async function sandboxCommand(command: SandboxCommand, io: AdminIo): Promise<number> {
  let sandbox;
  try {
    sandbox = await copyToSandbox(command.businessId, command.reset);
  } catch (error) {
    if (!(error instanceof SandboxRefused)) throw error;
    say(io.err, error.message);
    return 1;
  }
  const { config } = sandbox;
  say(
    io.err,
    `${sandbox.created ? 'Created' : 'Updated'} ${config.id}: the setup of ${command.businessId}, none of its records`,
  );
  if (command.reset && !sandbox.created) {
    const emptied = await emptySandbox(sandbox);
    say(io.err, `Emptied ${config.id}: ${emptied.records} records, ${emptied.feedEntries} change-feed entries`);
  }
  if (sandbox.created || command.reset) {
    // External ids carry the generation: the next reset's people never meet an id this one kept.
    const people = generatePeople(config, {
      seed: SANDBOX_SEED,
      anchor: todayIn(config.timezone),
      employees: command.employees,
      applications: command.applications,
      externalIdPrefix: `g${config.sandbox?.generation ?? 1}-`,
    });
    const { counts, failures } = await importPeople(config.id, people, ADMIN_ORIGIN);
    for (const failure of failures) say(io.err, failure);
    say(
      io.err,
      `Filled ${config.id}: ${counts.employees.created} employees, ${counts.employee_jobs.created} jobs, ${counts.applications.created} applications`,
    );
    if (failures.length) return 1;
  } else {
    say(io.err, `${config.id} keeps its people (--reset empties and refills it)`);
  }
  const token = await issueToken(config.id, `sandbox of ${command.businessId}`);
  say(io.out, JSON.stringify({ business_id: config.id, token }));
  return 0;
}
