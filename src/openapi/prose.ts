import { PROSE } from './generated/prose';

/**
 * The API prose of the OpenAPI document, written as markdown in src/openapi/prose/ (one file per kind of text;
 * `npm run build:prose` turns them into generated/prose.ts). A file of sections holds one `# <key>` heading per
 * text; `{{name}}` stands for a value the code fills in, so a figure the runtime enforces is stated once.
 */

/** A whole file, its `{{name}}` placeholders filled from `values` (an unknown or unused name throws). */
export function proseText(file: string, values: Record<string, string | number> = {}): string {
  const text = PROSE[file];
  if (text === undefined) throw new Error(`No src/openapi/prose/${file}.md`);
  const used = new Set<string>();
  const filled = text.replace(/\{\{([\w.]+)\}\}/g, (_m, name: string) => {
    if (!(name in values)) throw new Error(`src/openapi/prose/${file}.md: no value for {{${name}}}`);
    used.add(name);
    return String(values[name]);
  });
  const unused = Object.keys(values).filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`src/openapi/prose/${file}.md: {{${unused.join('}}, {{')}}} not used`);
  return filled;
}

/** The `# <key>` sections of a file (headings inside fenced code blocks are text), by key. */
export const proseSections = (file: string, values: Record<string, string | number> = {}): Record<string, string> =>
  sectionsOf(proseText(file, values), `src/openapi/prose/${file}.md`);

/** The `# <key>` sections of a markdown text, by key; `where` names it in errors. */
export function sectionsOf(text: string, where: string): Record<string, string> {
  const sections: Record<string, string[]> = {};
  let current: string[] | undefined;
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^# (.+)$/.exec(line);
    if (heading) {
      const key = heading[1]!.trim();
      if (sections[key]) throw new Error(`${where}: two sections "${key}"`);
      current = sections[key] = [];
    } else if (current) current.push(line);
    else if (line.trim()) throw new Error(`${where}: text before the first "# " heading`);
  }
  return Object.fromEntries(Object.entries(sections).map(([key, lines]) => [key, lines.join('\n').trim()]));
}
