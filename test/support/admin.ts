import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runAdmin } from '../../scripts/lib/admin-cli';

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The admin tool's commands run in this process, against this test file's
 * table (TABLE_NAME and DYNAMODB_ENDPOINT of the harness): the same arguments,
 * exit code and output lines as `npm run admin -- ...`, without a process
 * start. The process itself (npm, tsx, exit code, the two streams) is tested
 * by `adminProcess` in test/integration/admin-import.test.ts.
 */
export async function admin(...args: string[]): Promise<AdminRun> {
  let stdout = '';
  let stderr = '';
  const before = { ...process.env };
  const code = await runAdmin(args, {
    out: { write: (text: string) => (stdout += text) },
    err: { isTTY: false, write: (text: string) => (stderr += text) },
  });
  // The tool may fill in what is missing (TABLE_NAME, DYNAMODB_ENDPOINT, ...); here all of it is given, and a
  // change would leak into the rest of the file: the in-process run must leave the environment as it found it.
  const changed = Object.keys({ ...before, ...process.env }).filter((k) => before[k] !== process.env[k]);
  if (changed.length > 0) throw new Error(`admin ${args.join(' ')} changed the environment: ${changed.join(', ')}`);
  return { code, stdout, stderr };
}

/**
 * `admin` with `env` set for the one run and put back afterwards: the tool in this process with the environment an
 * operator gives it (another table name, another endpoint).
 */
export async function adminWith(env: Record<string, string>, ...args: string[]): Promise<AdminRun> {
  const saved = Object.entries(env).map(([key]) => [key, process.env[key]] as const);
  Object.assign(process.env, env);
  try {
    return await admin(...args);
  } finally {
    for (const [key, value] of saved)
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  }
}

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

/**
 * The admin tool as an operator runs it: `command` (`npm run admin --` or tsx
 * scripts/admin.ts) in its own process, with this process's environment and
 * `env` on top (undefined removes a variable).
 */
export async function adminProcess(
  command: readonly string[],
  env: Record<string, string | undefined>,
  ...args: string[]
): Promise<AdminRun> {
  const [file = '', ...rest] = command;
  try {
    const { stdout, stderr } = await run(file, [...rest, ...args], {
      cwd: root,
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `npm run admin -- ...` from the repository, as docs/operations.md shows it. */
export const NPM_RUN_ADMIN = ['npm', 'run', 'admin', '--'] as const;
/** The same tool without npm's own start-up (a few hundred ms of CPU): tsx on scripts/admin.ts. */
export const TSX_ADMIN = [join(root, 'node_modules', '.bin', 'tsx'), 'scripts/admin.ts'] as const;
