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

/**
 * A lone surrogate (`\ud800` escaped in JSON) is UTF-16 that is not Unicode
 * (contract §2). In a `u` regex a surrogate pair is one code point, so only
 * unpaired halves match.
 */
const LONE_SURROGATE = /\p{Surrogate}/u;
export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);

/**
 * The top-level fields of a parsed JSON body that hold a lone surrogate
 * anywhere: in their name, or in any string or key beneath them (iterative,
 * like jsonShapeProblem). Not an object: none.
 */
export function loneSurrogateFields(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const holds = (value: unknown): boolean => {
    const pending = [value];
    while (pending.length > 0) {
      const next = pending.pop();
      if (typeof next === 'string') {
        if (hasLoneSurrogate(next)) return true;
      } else if (typeof next === 'object' && next !== null)
        for (const [key, child] of Object.entries(next)) {
          if (hasLoneSurrogate(key)) return true;
          pending.push(child);
        }
    }
    return false;
  };
  return Object.entries(body)
    .filter(([field, value]) => hasLoneSurrogate(field) || holds(value))
    .map(([field]) => field);
}
