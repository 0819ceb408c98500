/**
 * The one builder of DynamoDB UpdateExpressions: `{ set, add, remove }` in,
 * the expression with its attribute names and values out. Every attribute goes
 * through a name placeholder (reserved words such as `status` or `data` need
 * no care) and every value through a value placeholder. The builder's
 * placeholders are `#u<i>` and `:u<i>`; a condition brings its own (`:current`,
 * `#version`) through `condition`, and a clash between the two throws.
 */

/** An attribute: its name, or the path of a map entry (`['job_summary', jobId]`). */
export type AttributePath = string | readonly string[];

/**
 * SET the attribute to this value only where it has none yet (`if_not_exists`).
 * A class, so no stored value (a custom field named `value`) is ever taken for one.
 */
export class IfNotExists {
  constructor(readonly value: unknown) {}
}

export const ifNotExists = (value: unknown): IfNotExists => new IfNotExists(value);

type Entries<V> = Readonly<Record<string, V>> | ReadonlyArray<readonly [AttributePath, V]>;

export interface UpdateSpec {
  /** Attribute -> new value (an `ifNotExists(v)` keeps a present value). */
  readonly set?: Entries<unknown>;
  /** Attribute -> number added (negative to subtract; absent counts as 0), or a set whose members are added. */
  readonly add?: Entries<number | ReadonlySet<string> | ReadonlySet<number>>;
  readonly remove?: readonly AttributePath[];
}

/** A condition's own expression and placeholders, merged into the update. */
export interface ConditionPart {
  readonly expression: string;
  readonly names?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, unknown>>;
}

/** The fields of an Update (UpdateCommand input or a transaction's Update item) the builder fills. */
export interface UpdateParts {
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

const entriesOf = <V>(e: Entries<V> | undefined): ReadonlyArray<readonly [AttributePath, V]> =>
  e === undefined ? [] : Array.isArray(e) ? (e as ReadonlyArray<readonly [AttributePath, V]>) : Object.entries(e);

function merge<V>(into: Record<string, V>, from: Readonly<Record<string, V>> | undefined, what: string): void {
  for (const [placeholder, v] of Object.entries(from ?? {})) {
    if (placeholder in into) throw new Error(`update expression: ${what} placeholder ${placeholder} used twice`);
    into[placeholder] = v;
  }
}

/**
 * The update for `spec` (and `condition`, when given). Throws when the spec
 * changes nothing (DynamoDB refuses an empty expression) or when a condition
 * placeholder collides with the builder's.
 */
export function updateOf(spec: UpdateSpec, condition?: ConditionPart): UpdateParts {
  const names: Record<string, string> = {};
  const byName = new Map<string, string>();
  const values: Record<string, unknown> = {};
  let nextValue = 0;
  const nameRef = (name: string): string => {
    let ref = byName.get(name);
    if (ref === undefined) {
      ref = `#u${byName.size}`;
      byName.set(name, ref);
      names[ref] = name;
    }
    return ref;
  };
  const pathRef = (path: AttributePath): string => (typeof path === 'string' ? [path] : path).map(nameRef).join('.');
  const valueRef = (value: unknown): string => {
    const ref = `:u${nextValue++}`;
    values[ref] = value;
    return ref;
  };

  const clauses: string[] = [];
  const set = entriesOf(spec.set).map(([path, value]) => {
    const ref = pathRef(path);
    return value instanceof IfNotExists
      ? `${ref} = if_not_exists(${ref}, ${valueRef(value.value)})`
      : `${ref} = ${valueRef(value)}`;
  });
  if (set.length) clauses.push(`SET ${set.join(', ')}`);
  const add = entriesOf(spec.add).map(([path, delta]) => `${pathRef(path)} ${valueRef(delta)}`);
  if (add.length) clauses.push(`ADD ${add.join(', ')}`);
  const remove = (spec.remove ?? []).map(pathRef);
  if (remove.length) clauses.push(`REMOVE ${remove.join(', ')}`);
  if (!clauses.length) throw new Error('update expression: nothing to set, add or remove');

  merge(names, condition?.names, 'name');
  merge(values, condition?.values, 'value');
  return {
    UpdateExpression: clauses.join(' '),
    ...(condition ? { ConditionExpression: condition.expression } : {}),
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
}
