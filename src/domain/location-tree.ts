/**
 * Tree positions of the locations of a business (contract §8), computed once
 * at import so a location read is a single GetItem.
 */

export interface LocationNode {
  id: string;
  parent_id: string | null;
}

export interface TreePosition {
  /** 0 for a root. */
  depth: number;
  /** The parent; null for a root. */
  ancestor_id: string | null;
  /** Root first, parent last; empty for a root. */
  ancestor_ids: string[];
  /** The node itself first, then its descendants depth-first pre-order, children in input order. */
  subtree_ids: string[];
}

export type TreeProblem = { id: string; problem: 'duplicate id' | 'unknown parent' | 'cycle' | 'own parent' };

/**
 * Positions of every node whose parent chain ends at a root, plus the
 * problems found, in input order of the offending nodes:
 * - `duplicate id`: a later node repeats an id; the first one is used.
 * - `own parent`: parent_id equals the node's id.
 * - `unknown parent`: parent_id names no node.
 * - `cycle`: the node lies on a parent cycle of two or more nodes.
 * Nodes below a problem node (whose chain never reaches a root) get no
 * position and no problem of their own: fixing their ancestor fixes them.
 *
 * Linear apart from the output itself: one pre-order walk puts every subtree
 * into a contiguous run of the walk, so each subtree_ids is one slice.
 */
export function buildLocationTree(nodes: readonly LocationNode[]): {
  positions: Map<string, TreePosition>;
  problems: TreeProblem[];
} {
  const problemAt = new Map<number, TreeProblem['problem']>();
  const { byId, indexOf } = indexNodes(nodes, problemAt);
  const positions = walkFromRoots(byId);
  findProblems(byId, indexOf, positions, problemAt);
  const problems = [...problemAt.entries()]
    .sort(([a], [b]) => a - b)
    .map(([i, problem]) => ({ id: (nodes[i] as LocationNode).id, problem }));
  return { positions, problems };
}

/** Each id's first node and its input index; a later node repeating an id is a `duplicate id`. */
function indexNodes(
  nodes: readonly LocationNode[],
  problemAt: Map<number, TreeProblem['problem']>,
): { byId: Map<string, LocationNode>; indexOf: Map<string, number> } {
  const byId = new Map<string, LocationNode>();
  const indexOf = new Map<string, number>();
  nodes.forEach((node, i) => {
    if (byId.has(node.id)) problemAt.set(i, 'duplicate id');
    else {
      byId.set(node.id, node);
      indexOf.set(node.id, i);
    }
  });
  return { byId, indexOf };
}

/** The roots, and each node's children in input order (a node naming itself or no node as parent is nobody's). */
function childrenOf(byId: ReadonlyMap<string, LocationNode>): { roots: string[]; children: Map<string, string[]> } {
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  for (const node of byId.values()) {
    if (node.parent_id === null) roots.push(node.id);
    else if (node.parent_id !== node.id && byId.has(node.parent_id)) {
      const siblings = children.get(node.parent_id);
      if (siblings) siblings.push(node.id);
      else children.set(node.parent_id, [node.id]);
    }
  }
  return { roots, children };
}

/** The positions of every node reached from a root: one pre-order walk. */
function walkFromRoots(byId: ReadonlyMap<string, LocationNode>): Map<string, TreePosition> {
  const { roots, children } = childrenOf(byId);
  // Iterative walk (a 5,000-deep chain would overflow a recursive one).
  // `order` is the pre-order sequence; start/end delimit each subtree in it.
  const order: string[] = [];
  const start = new Map<string, number>();
  const positions = new Map<string, TreePosition>();
  const path: string[] = [];
  for (const root of roots) {
    const stack: { id: string; next: number }[] = [{ id: root, next: 0 }];
    start.set(root, order.length);
    order.push(root);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { id: string; next: number };
      const kids = children.get(top.id) ?? [];
      const child = kids[top.next];
      if (child !== undefined) {
        top.next += 1;
        path.push(top.id);
        start.set(child, order.length);
        order.push(child);
        stack.push({ id: child, next: 0 });
        continue;
      }
      stack.pop();
      const ancestors = path.slice();
      positions.set(top.id, {
        depth: ancestors.length,
        ancestor_id: ancestors[ancestors.length - 1] ?? null,
        ancestor_ids: ancestors,
        subtree_ids: order.slice(start.get(top.id), order.length),
      });
      path.pop();
    }
  }
  return positions;
}

/**
 * Every node not reached hangs below a problem; finds the problems themselves.
 * Following parent links among unreached nodes is a functional graph, so a
 * three-colour walk finds each cycle once, in linear time overall.
 */
function findProblems(
  byId: ReadonlyMap<string, LocationNode>,
  indexOf: ReadonlyMap<string, number>,
  positions: ReadonlyMap<string, TreePosition>,
  problemAt: Map<number, TreeProblem['problem']>,
): void {
  for (const node of byId.values()) {
    if (positions.has(node.id)) continue;
    const i = indexOf.get(node.id) as number;
    if (node.parent_id === node.id) problemAt.set(i, 'own parent');
    else if (node.parent_id !== null && !byId.has(node.parent_id)) problemAt.set(i, 'unknown parent');
  }
  const state = new Map<string, 'walking' | 'done'>();
  for (const node of byId.values()) {
    if (positions.has(node.id) || state.has(node.id)) continue;
    const trail: string[] = [];
    let id: string | null = node.id;
    while (id !== null && !positions.has(id) && !state.has(id)) {
      state.set(id, 'walking');
      trail.push(id);
      const parent: string | null = (byId.get(id) as LocationNode).parent_id;
      // Own-parent and unknown-parent nodes end the chain: they are reported as such, not as a cycle.
      id = parent === id || (parent !== null && !byId.has(parent)) ? null : parent;
    }
    if (id !== null && state.get(id) === 'walking') {
      // The walk came back to a node of this same trail: from there on it is the cycle.
      for (let k = trail.indexOf(id); k < trail.length; k++)
        problemAt.set(indexOf.get(trail[k] as string) as number, 'cycle');
    }
    for (const t of trail) state.set(t, 'done');
  }
}
