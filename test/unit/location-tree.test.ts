import { buildLocationTree, type LocationNode } from '../../src/domain/location-tree';

const node = (id: string, parent_id: string | null = null): LocationNode => ({ id, parent_id });

describe('buildLocationTree', () => {
  //  hq
  //  ├── north
  //  │   ├── n1
  //  │   └── n2
  //  │       └── n2a
  //  └── south
  //  shop          (second root)
  // Listed children-before-parents on purpose: input order must not need to be topological.
  const nodes = [
    node('n2a', 'n2'),
    node('hq'),
    node('south', 'hq'),
    node('n1', 'north'),
    node('north', 'hq'),
    node('n2', 'north'),
    node('shop'),
  ];
  const { positions, problems } = buildLocationTree(nodes);

  it('finds no problems in a valid forest and positions every node', () => {
    expect(problems).toEqual([]);
    expect([...positions.keys()].sort()).toEqual(nodes.map((n) => n.id).sort());
  });

  it('a root: depth 0, no ancestors, the whole tree as subtree in pre-order, children in input order', () => {
    expect(positions.get('hq')).toEqual({
      depth: 0,
      ancestor_id: null,
      ancestor_ids: [],
      subtree_ids: ['hq', 'south', 'north', 'n1', 'n2', 'n2a'],
    });
  });

  it('an inner node', () => {
    expect(positions.get('north')).toEqual({
      depth: 1,
      ancestor_id: 'hq',
      ancestor_ids: ['hq'],
      subtree_ids: ['north', 'n1', 'n2', 'n2a'],
    });
    expect(positions.get('n2')).toEqual({
      depth: 2,
      ancestor_id: 'north',
      ancestor_ids: ['hq', 'north'],
      subtree_ids: ['n2', 'n2a'],
    });
  });

  it('a leaf: its subtree is itself, ancestors root first and parent last', () => {
    expect(positions.get('n2a')).toEqual({
      depth: 3,
      ancestor_id: 'n2',
      ancestor_ids: ['hq', 'north', 'n2'],
      subtree_ids: ['n2a'],
    });
    expect(positions.get('south')).toEqual({
      depth: 1,
      ancestor_id: 'hq',
      ancestor_ids: ['hq'],
      subtree_ids: ['south'],
    });
  });

  it('a second root is a tree of its own', () => {
    expect(positions.get('shop')).toEqual({ depth: 0, ancestor_id: null, ancestor_ids: [], subtree_ids: ['shop'] });
  });

  it('returns fresh arrays per node (mutating one position does not affect another)', () => {
    const { positions: p } = buildLocationTree([node('a'), node('b', 'a')]);
    p.get('a')?.subtree_ids.push('x');
    expect(p.get('b')?.subtree_ids).toEqual(['b']);
    expect(p.get('b')?.ancestor_ids).toEqual(['a']);
  });

  it('an empty list', () => {
    const result = buildLocationTree([]);
    expect(result.positions.size).toBe(0);
    expect(result.problems).toEqual([]);
  });

  describe('problems', () => {
    it('duplicate id: the first node counts, the later one is reported', () => {
      const r = buildLocationTree([node('a'), node('b', 'a'), node('a', 'b')]);
      expect(r.problems).toEqual([{ id: 'a', problem: 'duplicate id' }]);
      expect(r.positions.get('a')).toEqual({ depth: 0, ancestor_id: null, ancestor_ids: [], subtree_ids: ['a', 'b'] });
    });

    it('own parent', () => {
      const r = buildLocationTree([node('a'), node('self', 'self')]);
      expect(r.problems).toEqual([{ id: 'self', problem: 'own parent' }]);
      expect(r.positions.has('self')).toBe(false);
      expect(r.positions.has('a')).toBe(true);
    });

    it('unknown parent', () => {
      const r = buildLocationTree([node('a'), node('orphan', 'ghost')]);
      expect(r.problems).toEqual([{ id: 'orphan', problem: 'unknown parent' }]);
      expect(r.positions.has('orphan')).toBe(false);
    });

    it('a cycle reports each node on it, not the nodes hanging below it', () => {
      const r = buildLocationTree([
        node('root'),
        node('x', 'z'),
        node('y', 'x'),
        node('z', 'y'),
        node('below', 'y'),
        node('ok', 'root'),
      ]);
      expect(r.problems).toEqual([
        { id: 'x', problem: 'cycle' },
        { id: 'y', problem: 'cycle' },
        { id: 'z', problem: 'cycle' },
      ]);
      expect([...r.positions.keys()].sort()).toEqual(['ok', 'root']);
    });

    it('a two-node cycle', () => {
      const r = buildLocationTree([node('a', 'b'), node('b', 'a')]);
      expect(r.problems).toEqual([
        { id: 'a', problem: 'cycle' },
        { id: 'b', problem: 'cycle' },
      ]);
      expect(r.positions.size).toBe(0);
    });

    it('a chain leading into a cycle reports only the cycle, wherever the walk starts', () => {
      const r = buildLocationTree([node('tail2', 'tail1'), node('tail1', 'c1'), node('c1', 'c2'), node('c2', 'c1')]);
      expect(r.problems).toEqual([
        { id: 'c1', problem: 'cycle' },
        { id: 'c2', problem: 'cycle' },
      ]);
    });

    it('descendants of an unknown-parent or own-parent node get no position and no problem', () => {
      const r = buildLocationTree([
        node('orphan', 'ghost'),
        node('kid', 'orphan'),
        node('self', 'self'),
        node('kid2', 'self'),
      ]);
      expect(r.problems).toEqual([
        { id: 'orphan', problem: 'unknown parent' },
        { id: 'self', problem: 'own parent' },
      ]);
      expect(r.positions.size).toBe(0);
    });

    it('several problems come in input order', () => {
      const r = buildLocationTree([
        node('c1', 'c2'),
        node('ok'),
        node('orphan', 'nobody'),
        node('ok', null),
        node('c2', 'c1'),
        node('me', 'me'),
      ]);
      expect(r.problems).toEqual([
        { id: 'c1', problem: 'cycle' },
        { id: 'orphan', problem: 'unknown parent' },
        { id: 'ok', problem: 'duplicate id' },
        { id: 'c2', problem: 'cycle' },
        { id: 'me', problem: 'own parent' },
      ]);
      expect([...r.positions.keys()]).toEqual(['ok']);
    });

    it('two separate cycles', () => {
      const r = buildLocationTree([node('a', 'b'), node('b', 'a'), node('c', 'd'), node('d', 'e'), node('e', 'c')]);
      expect(r.problems.map((p) => p.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
      expect(r.problems.every((p) => p.problem === 'cycle')).toBe(true);
    });
  });

  describe('size', () => {
    // Sizes, not timings: a wall-clock limit fails on a loaded machine and proves nothing on a fast one.
    it('a 5,000-deep chain (given leaf first) without stack overflow', () => {
      const n = 5000;
      const chain = Array.from({ length: n }, (_, i) => node(`l${n - 1 - i}`, i === n - 1 ? null : `l${n - 2 - i}`));
      const { positions: p, problems: pr } = buildLocationTree(chain);
      expect(pr).toEqual([]);
      const leaf = p.get(`l${n - 1}`);
      expect(leaf?.depth).toBe(n - 1);
      expect(leaf?.ancestor_ids[0]).toBe('l0');
      expect(leaf?.ancestor_ids).toHaveLength(n - 1);
      expect(p.get('l0')?.subtree_ids).toHaveLength(n);
      expect(p.get('l2500')?.subtree_ids[0]).toBe('l2500');
    });

    it('a 5,000-node cycle: every node reported once', () => {
      const n = 5000;
      const ring = Array.from({ length: n }, (_, i) => node(`r${i}`, `r${(i + 1) % n}`));
      const r = buildLocationTree(ring);
      expect(r.problems).toHaveLength(n);
      expect(new Set(r.problems.map((p) => p.id)).size).toBe(n);
    });

    it('a wide tree of 20,000 leaves under one root', () => {
      const wide = [node('root'), ...Array.from({ length: 20_000 }, (_, i) => node(`c${i}`, 'root'))];
      const r = buildLocationTree(wide);
      expect(r.positions.get('root')?.subtree_ids).toHaveLength(20_001);
      expect(r.positions.get('c19999')).toEqual({
        depth: 1,
        ancestor_id: 'root',
        ancestor_ids: ['root'],
        subtree_ids: ['c19999'],
      });
    });
  });
});
