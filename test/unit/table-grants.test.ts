import { FALLBACK_ROUTE, ROUTES } from '../../src/http/routes';
import { TABLE_GRANTS, WORKER_GRANTS } from '../../src/http/grants';
import { DISPATCHER_NAME } from '../../src/services/webhook-dispatcher';
import { RETENTION_JOB_NAME } from '../../src/services/retention';
import { EFFECTIVE_JOB_NAME } from '../../src/services/effective-dates';
import { CHECK_JOB_NAME } from '../../src/services/attachments';
import { EXPORT_WORKER_NAME } from '../../src/services/exports';
import { IMPORT_WORKER_NAME } from '../../src/services/import-run';
import { TABLE } from '../../src/data/dynamo/table-definition';
import { iamActionsOf } from '../../src/data/dynamo/call-scope';
import { checkGrants, parseCall } from '../support/dynamo-calls';

const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem', 'BatchWriteItem'];

describe('TABLE_GRANTS (src/http/grants.ts)', () => {
  test('one grant per route and the fallback, and no other', () => {
    expect(Object.keys(TABLE_GRANTS).sort()).toEqual([...ROUTES.map((r) => r.name), FALLBACK_ROUTE.name].sort());
  });

  test('one worker grant per function that is not a route: the webhook dispatcher, the retention and effective-date jobs, the upload check, the export and import workers', () => {
    expect(Object.keys(WORKER_GRANTS)).toEqual([
      DISPATCHER_NAME,
      RETENTION_JOB_NAME,
      EFFECTIVE_JOB_NAME,
      CHECK_JOB_NAME,
      EXPORT_WORKER_NAME,
      IMPORT_WORKER_NAME,
    ]);
    expect(ROUTES.map((r) => r.name)).not.toContain(CHECK_JOB_NAME);
    expect(ROUTES.map((r) => r.name)).not.toContain(DISPATCHER_NAME);
    expect(ROUTES.map((r) => r.name)).not.toContain(RETENTION_JOB_NAME);
    expect(ROUTES.map((r) => r.name)).not.toContain(EFFECTIVE_JOB_NAME);
    expect(ROUTES.map((r) => r.name)).not.toContain(EXPORT_WORKER_NAME);
  });

  test('agree with each route access level: none = no table, GET routes write nothing, writers write', () => {
    for (const route of [...ROUTES, FALLBACK_ROUTE]) {
      const { actions, indexes } = TABLE_GRANTS[route.name];
      if (route.access === 'none')
        expect({ route: route.name, actions, indexes }).toEqual({ route: route.name, actions: [], indexes: [] });
      const writes = actions.filter((a) => WRITES.includes(a));
      if ('method' in route && route.method === 'GET')
        expect({ route: route.name, writes }).toEqual({ route: route.name, writes: [] });
      if (route.access === 'write') expect(writes.length).toBeGreaterThan(0);
    }
  });

  test('no Scan, no duplicates, only existing indexes, indexes only with Query', () => {
    const indexNames: string[] = TABLE.indexes.map((i) => i.name);
    for (const [name, { actions, indexes }] of Object.entries({ ...TABLE_GRANTS, ...WORKER_GRANTS })) {
      expect({ name, scan: actions.includes('Scan' as never) }).toEqual({ name, scan: false });
      expect(new Set(actions).size).toBe(actions.length);
      expect(new Set(indexes).size).toBe(indexes.length);
      for (const index of indexes) expect(indexNames).toContain(index);
      if (indexes.length > 0) expect(actions).toContain('Query');
    }
  });
});

describe('observed calls', () => {
  test('a transaction needs the item actions it contains, other commands their own name', () => {
    expect(iamActionsOf('GetItemCommand', {})).toEqual(['GetItem']);
    expect(iamActionsOf('QueryCommand', { IndexName: 'list' })).toEqual(['Query']);
    expect(
      iamActionsOf('TransactWriteItemsCommand', {
        TransactItems: [{ Put: {} }, { Update: {} }, { Put: {} }, { ConditionCheck: {} }, { Delete: {} }],
      }).sort(),
    ).toEqual(['ConditionCheckItem', 'DeleteItem', 'PutItem', 'UpdateItem']);
  });

  const grants = {
    'get-thing': { actions: ['GetItem', 'BatchGetItem'], indexes: [] },
    'list-things': { actions: ['GetItem', 'Query'], indexes: ['list-keys', 'sublist-keys'] },
    'other-thing': { actions: ['GetItem'], indexes: [] },
  } as const;

  test('every observed (route, action, index) must be granted', () => {
    const observed = [
      'get-thing GetItem -',
      'get-thing Query list-keys',
      'list-things Query list-keys',
      'list-things Query created',
      'list-things Query -',
      'new-route GetItem -',
    ].map(parseCall);
    expect(checkGrants(observed, grants).undeclared).toEqual([
      'get-thing: action Query',
      'list-things: index created',
      'new-route: unknown route',
    ]);
  });

  test('grants never used are reported only for routes the tests exercised', () => {
    const observed = ['get-thing GetItem -', 'list-things GetItem -', 'list-things Query list-keys'].map(parseCall);
    const { undeclared, unobserved } = checkGrants(observed, grants);
    expect(undeclared).toEqual([]);
    expect(unobserved).toEqual(['get-thing: action BatchGetItem', 'list-things: index sublist-keys']);
  });
});
