/**
 * Contract §2: a body nested deeper than 64 levels, or with more than 1,000
 * keys in one object, is refused before anything recursive (JSON.stringify for
 * an idempotency hash, schema validation) can run out of stack on it. JSON.parse
 * itself is iterative; this check is too.
 */
export const JSON_LIMITS = { maxDepth: 64, maxKeys: 1000 } as const;

/** Which limit a parsed JSON value breaks, or undefined when it keeps both. The top-level value is level 1. */
export function jsonShapeProblem(
  value: unknown,
  limits: { readonly maxDepth: number; readonly maxKeys: number } = JSON_LIMITS,
): { tooDeep: number } | { tooWide: number } | undefined {
  const pending: Array<{ node: object; depth: number }> = [];
  if (typeof value === 'object' && value !== null) pending.push({ node: value, depth: 1 });
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { node, depth } = next;
    if (depth > limits.maxDepth) return { tooDeep: limits.maxDepth };
    const children = Array.isArray(node) ? (node as unknown[]) : Object.values(node);
    if (!Array.isArray(node) && children.length > limits.maxKeys) {
      return { tooWide: limits.maxKeys };
    }
    for (const child of children) {
      if (typeof child === 'object' && child !== null) pending.push({ node: child, depth: depth + 1 });
    }
  }
  return undefined;
}
