import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TABLE, TABLE_LAYOUT } from '../../src/data/dynamo/table-definition';
import { keys, type Key, type RecordKind } from '../../src/data/dynamo/keys';
import { ENTITIES } from '../../src/data/entities';

/**
 * docs/architecture.md's "Table items" table and GSI list must say what the
 * code builds: keys come from the builders called with the placeholders the
 * doc uses, so changing a key without the doc (or the reverse) fails here.
 */
const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'architecture.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Table items'));
const patternsSection = doc.slice(doc.indexOf('## Access patterns'), doc.indexOf('## Table items'));
const [itemsPart = '', indexPart = ''] = section.split('GSIs (');

const documented = new Map(
  itemsPart
    .split('\n')
    .filter((line) => /^\| [a-z]/.test(line) && !line.startsWith('| item '))
    .map((line) => line.split('|').map((c) => c.trim().replace(/^`|`$/g, '')))
    .map(([, item, pk, sk]) => [item ?? '', { PK: pk ?? '', SK: sk ?? '' }]),
);

const built: Record<string, Key> = {
  'table layout': TABLE_LAYOUT.key,
  token: keys.token('<sha256>'),
  'token listing': keys.tokenListing('<bid>', '<sha256>'),
  'business config': keys.business('<bid>'),
  'business registry': keys.businessRegistry('<bid>'),
  record: keys.record('<bid>', '<kind>' as RecordKind, '<id>'),
  'list counter': keys.counter('<bid>', '<list>'),
  // Shards are zero-padded; the doc names them <shard>.
  'summary shard': { ...keys.summaryShard('<bid>', '<list>', 0), SK: 'C#<shard>' },
  'unique value': keys.unique('<bid>', '<field>', '<value>'),
  idempotency: keys.idempotency('<bid>', '<key>'),
  // The superblock number is zero-padded so maps sort numerically; the doc names it <superblock>.
  'list map': { ...keys.listMap('<bid>', '<list>', 0, 0), SK: '<superblock>#<shard>' },
  'webhook subscription': keys.webhookSubscription('<bid>', '<id>'),
  'webhook subscription count': keys.webhookSubscriptionCount('<bid>'),
  // Attempt sequences are zero-padded; the doc names them <seq>.
  'webhook delivery': { ...keys.webhookDelivery('<bid>', '<id>', 0), SK: '<seq>' },
  'webhook delivery day': keys.webhookDeliveryDay('<bid>', '<id>', 'd<YYYYMMDD>'),
  // Sequences are zero-padded; the doc names them <seq>.
  'feed entry': keys.feedEntry('<bid>', '<lane>', '<seq>'),
  // Lanes are zero-padded; the doc names them <lane>.
  'feed counter': { ...keys.feedCounter('<bid>', 0), SK: '<lane>' },
  'business rate counter': keys.businessRate('<bid>'),
  'token rate counter': keys.tokenRate('<bid>', '<sha256>'),
  'export job': keys.exportJob('<bid>', '<id>'),
  'import job': keys.importJob('<bid>', '<id>'),
  'import count': keys.importMeta('<bid>'),
  // Row numbers are zero-padded; the doc names them <row>.
  'import row': keys.importRow('<bid>', '<id>', '<row>'),
  'import in progress': keys.importInProgress('<bid>', '<id>'),
};

describe('docs/architecture.md matches the key design', () => {
  test('every documented item is built by the code, and every built item is documented', () => {
    expect([...documented.keys()].sort()).toEqual(Object.keys(built).sort());
  });

  test.each(Object.entries(built))('%s keys', (item, key) => {
    expect(documented.get(item)).toEqual(key);
  });

  test('the maps of one list share one partition, the shards of a superblock together and in order', () => {
    expect(keys.listMap('b', 'l', 7, 3).PK).toBe(keys.listMap('b', 'l', 0, 0).PK);
    expect(keys.listMap('b', 'l', 7, 3).SK).toBe('00000007#03');
    const sks = [keys.listMap('b', 'l', 7, 15), keys.listMap('b', 'l', 8, 0), keys.listMap('b', 'l', 7, 2)].map(
      (k) => k.SK,
    );
    expect(sks.sort()).toEqual(['00000007#02', '00000007#15', '00000008#00']);
  });

  test('the shards of a summary share the partition of its base', () => {
    expect(keys.summaryShard('b', 'l', 5)).toEqual({ PK: keys.counter('b', 'l').PK, SK: 'C#05' });
  });

  test('the GSI table lists exactly the indexes of the table definition', () => {
    const rows = indexPart
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) =>
        line
          .split('|')
          .slice(1, 4)
          .map((c) => c.trim().replace(/`/g, '')),
      );
    expect(rows).toEqual(TABLE.indexes.map((i) => [i.name, i.partitionKey, i.sortKey.name]));
  });
});

/** Partition keys built with placeholders (`<bid>`, `<jobId>`, ...) for the parameters, as the doc shows them. */
const placeholders = new Proxy({}, { get: (_t, name) => (name === 'businessId' ? '<bid>' : `<${String(name)}>`) });

describe('docs/architecture.md access patterns match the entity modules', () => {
  const cells = (line: string): string[] =>
    line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim().replace(/^`|`$/g, ''));
  const documented = patternsSection
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| entity ') && !line.startsWith('| ---'))
    .map(cells);
  const declared = ENTITIES.flatMap((e) =>
    Object.entries(e.patterns).map(([name, p]) => [
      e.entity,
      name,
      p.index,
      (p.partition as (params: unknown) => string)(placeholders),
      p.sort,
    ]),
  );

  test('one row per declared pattern: entity, pattern, index, partition key, sort key', () => {
    // On a difference, the expected rows are the declared ones: paste them into the doc.
    expect(documented).toEqual(declared);
  });

  test('every pattern reads the table or an index of the table definition', () => {
    const indexes = new Set<string>(['table', ...TABLE.indexes.map((i) => i.name)]);
    for (const [, , index] of declared) expect(indexes).toContain(index);
  });
});
