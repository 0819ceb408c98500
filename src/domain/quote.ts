/**
 * Messages quote at most 100 characters of a client's value (contract §2): an
 * id of any length in the path must not make an error body of that length.
 */
export const MAX_QUOTED_CHARS = 100;

/** A client's text cut to 100 characters (whole code points), marked with … when cut. */
export function clip(text: string): string {
  // 2 units per character at most, plus one more character: enough to tell whether there are over 100.
  const points = Array.from(text.slice(0, 2 * MAX_QUOTED_CHARS + 2));
  return points.length > MAX_QUOTED_CHARS ? `${points.slice(0, MAX_QUOTED_CHARS).join('')}…` : points.join('');
}
