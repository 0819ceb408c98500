import { currentScope, withinScope } from '../request-scope';

/**
 * Which function (route) a DynamoDB call is made for, and the set of
 * (route, action, index) this process has sent. The integration tests compare
 * that set with the IAM grants declared in src/http/grants.ts (TABLE_GRANTS); in
 * Lambda the set holds the few combinations of one function. The route is
 * part of the request scope (src/data/request-scope.ts).
 */

/**
 * What the rate count syncs of every route are attributed to: one grant for all
 * of them (UpdateItem on the `RATE#` items only, src/http/grants.ts RATE_COUNT_GRANT).
 */
export const RATE_COUNTS_SCOPE = 'rate-counts';

/** Runs `fn` with its DynamoDB calls attributed to `route`. */
export const inCallScope = <T>(route: string, fn: () => Promise<T>): Promise<T> => withinScope({ route }, fn);

/** Observed calls as `route action index` ('-' for the table itself); calls outside a route are not kept. */
export const observedCalls = new Set<string>();

const TRANSACT_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

/**
 * The IAM actions a command needs: its own name, except TransactWriteItems,
 * which IAM authorizes by the item actions it contains.
 */
export function iamActionsOf(commandName: string, input: unknown): string[] {
  const name = commandName.replace(/Command$/, '');
  if (name !== 'TransactWriteItems') return [name];
  const items = (input as { TransactItems?: Record<string, unknown>[] }).TransactItems ?? [];
  return [...new Set(items.flatMap((item) => Object.keys(item).map((kind) => TRANSACT_ACTIONS[kind] ?? kind)))];
}

export function recordCall(commandName: string, input: unknown): void {
  const route = currentScope().route;
  if (route === undefined) return;
  const index = (input as { IndexName?: string }).IndexName ?? '-';
  for (const action of iamActionsOf(commandName, input)) observedCalls.add(`${route} ${action} ${index}`);
}
