import fc from 'fast-check';
import { ifNotExists, updateOf } from '../../src/data/dynamo/update-expression';

/** The placeholders an expression uses, in order. */
const namesIn = (e: string): string[] => e.match(/#\w+/g) ?? [];
const valuesIn = (e: string): string[] => e.match(/:\w+/g) ?? [];

describe('updateOf', () => {
  it('puts every attribute and value behind a placeholder, reserved words included', () => {
    const u = updateOf(
      {
        set: { status: 'hired', data: null, job_summary: { a: 1 } },
        add: { version: 1, n: -1 },
        remove: ['name', 'body'],
      },
      { expression: 'version = :v', values: { ':v': 3 } },
    );
    expect(u.UpdateExpression).toBe('SET #u0 = :u0, #u1 = :u1, #u2 = :u2 ADD #u3 :u3, #u4 :u4 REMOVE #u5, #u6');
    expect(u.ExpressionAttributeNames).toEqual({
      '#u0': 'status',
      '#u1': 'data',
      '#u2': 'job_summary',
      '#u3': 'version',
      '#u4': 'n',
      '#u5': 'name',
      '#u6': 'body',
    });
    expect(u.ExpressionAttributeValues).toEqual({
      ':u0': 'hired',
      ':u1': null,
      ':u2': { a: 1 },
      ':u3': 1,
      ':u4': -1,
      ':v': 3,
    });
    expect(u.ConditionExpression).toBe('version = :v');
  });

  it('writes map entries as paths and if_not_exists for ifNotExists', () => {
    const u = updateOf({
      set: [
        [['job_summary', 'job-1'], { seq: 1 }],
        ['first', ifNotExists(5)],
      ],
    });
    expect(u.UpdateExpression).toBe('SET #u0.#u1 = :u0, #u2 = if_not_exists(#u2, :u1)');
    expect(u.ExpressionAttributeNames).toEqual({ '#u0': 'job_summary', '#u1': 'job-1', '#u2': 'first' });
    expect(u.ExpressionAttributeValues).toEqual({ ':u0': { seq: 1 }, ':u1': 5 });
  });

  it('adds the members of a set', () => {
    const ids = new Set(['app-1']);
    expect(updateOf({ add: { erased: ids } })).toEqual({
      UpdateExpression: 'ADD #u0 :u0',
      ExpressionAttributeNames: { '#u0': 'erased' },
      ExpressionAttributeValues: { ':u0': ids },
    });
  });

  it('stores an object that looks like a marker as it is', () => {
    const value = { value: 1 };
    expect(updateOf({ set: { custom: value } }).ExpressionAttributeValues).toEqual({ ':u0': value });
  });

  it('leaves out empty names and values, and refuses an empty update', () => {
    expect(updateOf({ remove: ['a'] })).toEqual({
      UpdateExpression: 'REMOVE #u0',
      ExpressionAttributeNames: { '#u0': 'a' },
    });
    expect(() => updateOf({ set: {}, add: [], remove: [] })).toThrow(/nothing/);
  });

  it('refuses a condition placeholder the builder also uses', () => {
    expect(() => updateOf({ set: { a: 1 } }, { expression: ':u0 > 1', values: { ':u0': 2 } })).toThrow(/:u0/);
    expect(() => updateOf({ set: { a: 1 } }, { expression: '#u0 > 1', names: { '#u0': 'b' } })).toThrow(/#u0/);
  });

  it('every placeholder is defined, every definition used, and it names the attribute given', () => {
    const attribute = fc.string({ minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(
        fc.uniqueArray(attribute, { maxLength: 6 }),
        fc.uniqueArray(attribute, { maxLength: 6 }),
        fc.uniqueArray(attribute, { maxLength: 6 }),
        fc.anything(),
        (set, add, remove, value) => {
          // One attribute in one clause only (DynamoDB refuses overlapping paths).
          const adds = add.filter((a) => !set.includes(a));
          const removes = remove.filter((a) => !set.includes(a) && !adds.includes(a));
          fc.pre(set.length + adds.length + removes.length > 0);
          const u = updateOf({
            set: set.map((a) => [a, value] as const),
            add: adds.map((a, i) => [a, i] as const),
            remove: removes,
          });
          const names = u.ExpressionAttributeNames ?? {};
          const values = u.ExpressionAttributeValues ?? {};
          expect(new Set(namesIn(u.UpdateExpression))).toEqual(new Set(Object.keys(names)));
          expect(valuesIn(u.UpdateExpression)).toEqual(Object.keys(values));
          expect(Object.values(names).sort()).toEqual([...set, ...adds, ...removes].sort());
          // What is left once the placeholders are gone is the expression's own syntax.
          const syntax = u.UpdateExpression.replace(/[#:]u\d+/g, '');
          expect(syntax).toMatch(/^(SET|ADD|REMOVE)[ ,=A-Z]*$/);
        },
      ),
    );
  });
});
