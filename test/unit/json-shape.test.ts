import fc from 'fast-check';
import { jsonShapeProblem } from '../../src/domain/json-shape';

/** `levels` containers nested in each other, objects and arrays alternating. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** Depth by plain recursion: the reference the iterative check must agree with (small values only). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

function widestObject(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return Math.max(Array.isArray(value) ? 0 : children.length, ...children.map(widestObject));
}

describe('jsonShapeProblem (contract §2)', () => {
  it('accepts 64 levels and refuses 65', () => {
    expect(jsonShapeProblem(nested(64))).toBeUndefined();
    expect(jsonShapeProblem(nested(65))).toEqual({ tooDeep: 64 });
  });

  it('accepts 1,000 keys in one object and refuses 1,001, at any level', () => {
    const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(jsonShapeProblem(wide(1000))).toBeUndefined();
    expect(jsonShapeProblem(wide(1001))).toEqual({ tooWide: 1000 });
    expect(jsonShapeProblem({ a: [{ b: wide(1001) }] })).toEqual({ tooWide: 1000 });
    // Arrays are bounded by the body size, not by this rule.
    expect(jsonShapeProblem({ a: Array.from({ length: 5000 }, (_, i) => i) })).toBeUndefined();
  });

  it('scalars are level 0', () => {
    for (const v of [null, 1, 'x', true]) expect(jsonShapeProblem(v)).toBeUndefined();
  });

  it('runs without recursion on a body far deeper than the stack (what 1 MiB of brackets parses to)', () => {
    const deep = JSON.parse('['.repeat(500_000) + ']'.repeat(500_000));
    expect(jsonShapeProblem(deep)).toEqual({ tooDeep: 64 });
  });

  it('agrees with a recursive definition on random JSON', () => {
    const limits = { maxDepth: 4, maxKeys: 3 };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 7 }), (value) => {
        const expectedOk = depthOf(value) <= limits.maxDepth && widestObject(value) <= limits.maxKeys;
        expect(jsonShapeProblem(value, limits) === undefined).toBe(expectedOk);
      }),
      { numRuns: 500 },
    );
  });
});
