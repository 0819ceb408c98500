/**
 * The applications the benchmarks seed (`npm run bench`: pagination, feed,
 * exports): a fixed business, a deterministic mix of statuses, jobs and
 * updates, put through the store the way creates would have written them.
 */
import type { StoredApplication } from '../../src/data/entities/application';
import { batchPut } from '../../src/data/dynamo/table-io';
import { importBusiness } from '../../src/data/business-store';
import { issueToken } from '../../src/data/token-store';
import { MAP_SIZE } from '../../src/domain/list-map';
import { buildBusiness } from '../../src/domain/fixture';
import { parseFixture } from '../../src/schemas/fixture';
import { seedItems } from './seed-applications';
import { eraseAtRandom } from './bench-erasure';

export const fixture = {
  business: {
    id: 'bench',
    name: 'Bench',
    locales: ['de', 'en'],
    timezone: 'Europe/Rome',
    // Benchmarks send far more than a client may (contract §18 defaults: 600 per token, 3,000 per business a minute).
    token_rate_limit: { requests: 100_000, window_seconds: 60 },
    rate_limit: { requests: 100_000, window_seconds: 60 },
  },
  application_statuses: [
    { id: 'new', name_de: 'Neu', default: true },
    { id: 'interview', name_de: 'Gespräch' },
    { id: 'hired', name_de: 'Eingestellt' },
    { id: 'rejected', name_de: 'Abgelehnt' },
  ],
  job_openings: [
    { id: 'cook', name_de: 'Koch' },
    { id: 'waiter', name_de: 'Kellner' },
    { id: 'spa', name_de: 'Spa' },
  ],
  application_fields: [
    { id: '31', type_of: 'text', name_de: 'Motivation', required: false },
    { id: '32', type_of: 'integer', name_de: 'Erfahrung', required: false },
  ],
};

/** Deterministic pseudo-random mix (no dependency, same data every run). */
export function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: number, table: readonly [T, number][]): T => {
  let acc = 0;
  for (const [value, weight] of table) {
    acc += weight;
    if (r < acc) return value;
  }
  return table[table.length - 1]![0];
};

const START = Date.parse('2026-01-01T08:00:00.000Z');
const createdAtOf = (i: number): string => new Date(START + i * 60_000).toISOString();
/** 10 % of the applications were updated after all creations (from this time on). */
export const updatedFromOf = (n: number): string => new Date(START + (n + 10) * 60_000).toISOString();

export function applications(n: number): StoredApplication[] {
  const rnd = mulberry32(42);
  const updatedFrom = Date.parse(updatedFromOf(n));
  return Array.from({ length: n }, (_, i) => {
    const created = createdAtOf(i);
    const updated = rnd() < 0.1 ? new Date(updatedFrom + i * 1000).toISOString() : created;
    return {
      id: `app-${String(i + 1).padStart(6, '0')}`,
      job_id: pick(rnd(), [
        ['cook', 0.4],
        ['waiter', 0.3],
        ['spa', 0.1],
        [null, 0.2],
      ] as const),
      application_status_id: pick(rnd(), [
        ['new', 0.5],
        ['interview', 0.25],
        ['hired', 0.1],
        ['rejected', 0.15],
      ] as const),
      accept_terms_and_conditions: true,
      accept_archivation: rnd() < 0.5,
      language: 'de',
      campaign_id: rnd() < 0.3 ? 'spring-campaign' : null,
      first_name: `Applicant ${i + 1}`,
      last_name: 'Mustermann-Bergstein',
      gender: pick(rnd(), [
        ['female', 0.45],
        ['male', 0.45],
        ['diverse', 0.1],
      ] as const),
      email: `applicant${i + 1}@example.com`,
      phone: '+39 0471 555 0000',
      birthday: '1994-05-17',
      cf: { cf_31: 'I would love to work in your team because of its great reputation.', cf_32: i % 20 },
      created_at: created,
      updated_at: updated,
      version: updated === created ? 1 : 2,
    };
  });
}

/** A business of `n` applications seeded through the store (share `erase` of them erased), with a token. */
export interface Seeded {
  readonly n: number;
  readonly token: string;
  readonly apps: StoredApplication[];
  readonly erased: number;
}

export async function seedBusiness(id: string, n: number, erase = 0): Promise<Seeded> {
  const parsed = parseFixture({ ...fixture, business: { ...fixture.business, id } });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  const { config, records } = buildBusiness(parsed.fixture);
  await importBusiness(config, records);
  const token = await issueToken(id, 'bench');
  const apps = applications(n);
  const t0 = performance.now();
  let items = seedItems(id, config, apps);
  let erased = 0;
  if (erase > 0) ({ items, erased } = eraseAtRandom(id, config.application_status_ids, items, erase, mulberry32(7)));
  // Two BatchWriteItem streams side by side, chunks re-sent when DynamoDB Local is slow to answer (puts are idempotent).
  const chunks = Array.from({ length: Math.ceil(items.length / 500) }, (_, i) => items.slice(i * 500, (i + 1) * 500));
  const stream = async (): Promise<void> => {
    for (let chunk = chunks.shift(); chunk; chunk = chunks.shift())
      for (let attempt = 1; ; attempt++) {
        try {
          await batchPut(chunk);
          break;
        } catch (error) {
          if (attempt >= 5) throw error;
        }
      }
  };
  await Promise.all([stream(), stream()]);
  console.log(
    `Seeded business ${id}: ${n} applications${erased ? `, ${erased} of them erased` : ''} (${items.length} items incl. counters and position maps, ${MAP_SIZE} positions per map) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return { n, token, apps, erased };
}
