import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateProse, PROSE_MODULE } from '../../scripts/build-prose';
import { ROUTES } from '../../src/http/routes';
import { proseSections, proseText, sectionsOf } from '../../src/openapi/prose';

/** The API prose is written once, in src/openapi/prose/*.md; the document reads it through a generated module. */
describe('src/openapi/prose', () => {
  it('generated/prose.ts is up to date with the markdown (run `npm run build:prose`)', () => {
    expect(readFileSync(PROSE_MODULE, 'utf8')).toBe(generateProse());
  });

  it('describes every operation of the route table and nothing else but the webhook deliveries (a change, a ping)', () => {
    const keys = Object.keys(proseSections('operations')).sort();
    expect(keys).toEqual([...ROUTES.map((route) => route.name), 'receive-change', 'receive-ping'].sort());
  });

  it('fills every placeholder and refuses a missing or an unused value', () => {
    expect(() => proseText('headers')).toThrow('no value for {{requests.min}}');
    expect(() => proseText('tags', { extra: 1 })).toThrow('{{extra}} not used');
  });

  it('splits a file into its "# " sections, keeping headings inside code blocks as text', () => {
    const text = '# one\n\nFirst.\n\n```sh\n# a comment\n```\n\n# two\n\nSecond.\n';
    expect(sectionsOf(text, 'x.md')).toEqual({ one: 'First.\n\n```sh\n# a comment\n```', two: 'Second.' });
    expect(() => sectionsOf('# a\n\n# a\n', 'x.md')).toThrow('x.md: two sections "a"');
    expect(() => sectionsOf('lost\n# a\n', 'x.md')).toThrow('text before the first');
  });

  it('generates one entry per markdown file, its lines kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prose-'));
    writeFileSync(join(dir, 'a.md'), '# one\n\n"Quoted" `code`.\n');
    expect(generateProse(dir)).toContain(
      '  "a": [\n    "# one",\n    "",\n    "\\"Quoted\\" `code`.",\n  ].join(\'\\n\'),',
    );
  });
});
