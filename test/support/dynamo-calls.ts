/**
 * The IAM grants of src/http/grants.ts (TABLE_GRANTS) against the DynamoDB calls
 * the integration tests observe. Every test file's process appends what its
 * requests sent (src/data/dynamo/call-scope.ts) to its own file under .cache/; the
 * global teardown merges them, once every worker is done.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RATE_COUNT_GRANT, TABLE_GRANTS, WORKER_GRANTS, type TableGrant } from '../../src/http/grants';
import { RATE_COUNTS_SCOPE } from '../../src/data/dynamo/call-scope';

export const CALLS_DIR = path.join(__dirname, '..', '..', '.cache', 'dynamo-calls');

/** One observed call: the route that sent it, the IAM action, the index ('-' = the table). */
export interface ObservedCall {
  readonly route: string;
  readonly action: string;
  readonly index: string;
}

export const parseCall = (line: string): ObservedCall => {
  const [route = '', action = '', index = '-'] = line.split(' ');
  return { route, action, index };
};

export function writeObservedCalls(file: string, calls: Iterable<string>): void {
  const lines = [...calls].sort();
  if (lines.length === 0) return;
  fs.mkdirSync(CALLS_DIR, { recursive: true });
  fs.writeFileSync(path.join(CALLS_DIR, file), `${lines.join('\n')}\n`);
}

export function readObservedCalls(): ObservedCall[] {
  if (!fs.existsSync(CALLS_DIR)) return [];
  const lines = new Set(
    fs
      .readdirSync(CALLS_DIR)
      .flatMap((f) => fs.readFileSync(path.join(CALLS_DIR, f), 'utf8').split('\n'))
      .filter(Boolean),
  );
  return [...lines].sort().map(parseCall);
}

export interface GrantCheck {
  /** Sent by a route but not in its grant: the deployed function would get AccessDenied. */
  readonly undeclared: string[];
  /** In the grant of a route the tests exercised, never sent: a permission the code may not need. */
  readonly unobserved: string[];
}

export function checkGrants(
  observed: readonly ObservedCall[],
  grants: Readonly<Record<string, TableGrant>> = {
    ...TABLE_GRANTS,
    ...WORKER_GRANTS,
    [RATE_COUNTS_SCOPE]: RATE_COUNT_GRANT,
  },
): GrantCheck {
  const undeclared: string[] = [];
  for (const { route, action, index } of observed) {
    const grant = grants[route];
    if (!grant) undeclared.push(`${route}: unknown route`);
    else if (!grant.actions.includes(action as never)) undeclared.push(`${route}: action ${action}`);
    else if (index !== '-' && !grant.indexes.includes(index as never)) undeclared.push(`${route}: index ${index}`);
  }
  const unobserved: string[] = [];
  for (const route of new Set(observed.map((c) => c.route))) {
    const grant = grants[route];
    if (!grant) continue;
    const mine = observed.filter((c) => c.route === route);
    for (const action of grant.actions)
      if (!mine.some((c) => c.action === action)) unobserved.push(`${route}: action ${action}`);
    for (const index of grant.indexes)
      if (!mine.some((c) => c.index === index)) unobserved.push(`${route}: index ${index}`);
  }
  return { undeclared: [...new Set(undeclared)], unobserved };
}
