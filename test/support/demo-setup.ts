import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import demo from '../../fixtures/demo.json';

/**
 * A fixture's business and reference data without its records (contract §24: the demo has about 900, a minute of
 * import): what the tests load when they only need the demo's setup (the harness's provision, `admin import`).
 */
export function withoutRecords<F extends object>(fixture: F): Omit<F, 'employees' | 'employee_jobs' | 'applications'> {
  const setup = { ...fixture } as Record<string, unknown>;
  for (const list of ['employees', 'employee_jobs', 'applications']) delete setup[list];
  return setup as Omit<F, 'employees' | 'employee_jobs' | 'applications'>;
}

/**
 * The demo without its records as a file, for `npm start` (DEMO_FIXTURE) in the tests that start it: each would
 * otherwise import the whole demo on its first run. test/integration/demo-sandbox.test.ts imports records.
 */
export function demoSetupFile(): string {
  const file = join(tmpdir(), `demo-setup-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(withoutRecords(demo)));
  return file;
}
