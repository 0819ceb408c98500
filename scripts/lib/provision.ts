import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { importBusiness, type ImportSummary } from '../../src/data/business-store';
import { issueToken } from '../../src/data/token-store';
import { buildBusiness } from '../../src/domain/fixture';
import { parseFixture } from '../../src/schemas/fixture';
import { checkFixtureRecords } from './fixture-records';
import { ADMIN_ORIGIN } from '../../src/domain/audit';
import { importPeople, type PeopleImport } from '../../src/services/people-import';

export class FixtureRejected extends Error {
  constructor(readonly problems: string[]) {
    super(`Fixture refused, nothing was written:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'FixtureRejected';
  }
}

/**
 * Reads and checks a fixture file as a whole, records included (each as its
 * POST would be checked); throws FixtureRejected naming every bad entry.
 */
export function loadFixture(file: string) {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new FixtureRejected([`${file}: ${(error as Error).message}`]);
  }
  const result = parseFixture(json);
  if (!result.ok) throw new FixtureRejected(result.problems);
  const problems = checkFixtureRecords(result.fixture, buildBusiness(result.fixture).config);
  if (problems.length) throw new FixtureRejected(problems);
  return result.fixture;
}

/**
 * Import (idempotent) + a new token: what `npm run admin -- import FILE` does.
 * The business and its reference data first, then its records through the
 * bulk import's row applier (src/services/people-import.ts). Records whose
 * rows fail against what is stored (an employee_number another record
 * holds) are listed in `people.failures`; the others are applied.
 */
export async function provisionFromFile(
  file: string,
): Promise<{ business_id: string; token: string; summary: ImportSummary; people: PeopleImport }> {
  const fixture = loadFixture(file);
  const { config, records } = buildBusiness(fixture);
  const summary = await importBusiness(config, records);
  const people = await importPeople(config.id, fixture, ADMIN_ORIGIN);
  // Named by the file alone: the name reaches tenants (feed entries, webhooks), the operator's folders must not.
  const token = await issueToken(config.id, `import ${basename(file)}`);
  return { business_id: config.id, token, summary, people };
}

/** `employees: 120 created, ...` for the operator. */
export function describePeople({ counts }: PeopleImport): string {
  return Object.entries(counts)
    .filter(([, c]) => Object.values(c).some((n) => n > 0))
    .map(
      ([type, c]) =>
        `${type}: ${Object.entries(c)
          .filter(([, n]) => n > 0)
          .map(([result, n]) => `${n} ${result}`)
          .join(', ')}`,
    )
    .join('; ');
}
