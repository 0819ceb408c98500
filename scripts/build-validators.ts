/**
 * Writes one standalone ajv validator per request/query schema named in the
 * route table to src/schemas/generated/ (`npm run build:validators`). Handlers
 * import these, so no Lambda compiles a schema or loads ajv at init; a unit test
 * fails when a file is out of date with its schema.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { _ } from 'ajv/dist/2020';
import { escapeFragment } from 'ajv/dist/compile/util';
import standaloneCode from 'ajv/dist/standalone';
import { ROUTES } from '../src/http/routes';
import { createAjv, type ValidatorKind } from '../src/schemas/ajv';
import { FORMATS } from '../src/schemas/formats-registry';
import { SCHEMAS } from '../src/schemas';

export const GENERATED_DIR = join(__dirname, '..', 'src', 'schemas', 'generated');

const kebab = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

/** The validators the routes need: request bodies and query strings. */
export function validatorTargets(): { name: string; kind: ValidatorKind; file: string }[] {
  const targets = new Map<string, { name: string; kind: ValidatorKind; file: string }>();
  for (const route of ROUTES) {
    const r = route as { request?: string; query?: string };
    if (r.request)
      targets.set(`body:${r.request}`, { name: r.request, kind: 'body', file: `validate-${kebab(r.request)}.ts` });
    if (r.query)
      targets.set(`query:${r.query}`, { name: r.query, kind: 'query', file: `validate-${kebab(r.query)}.ts` });
  }
  return [...targets.values()].sort((a, b) => a.file.localeCompare(b.file));
}

/** End of the JSON value starting at `start` (an object or array literal), strings and escapes skipped. */
function endOfJson(code: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
  }
  throw new Error('unterminated JSON in generated code');
}

/** `.a["x-y"][0]` -> ['a', 'x-y', '0']. */
function pathOf(accessors: string): string[] {
  return [...accessors.matchAll(/\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)].map(
    ([, name, index, quoted]) => name ?? index ?? (JSON.parse(quoted!) as string),
  );
}

const at = (value: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((v, key) => (v as Record<string, unknown>)[key], value);

/**
 * Ajv's standalone code declares the whole schema as a constant (descriptions and patterns included) when
 * any error reads a piece of it (a `type` or `enum` in the error's params): up to a third of a validator.
 * Each constant keeps only the pieces the code reads; anything else reading it fails the build.
 */
export function pruneSchemaConstants(code: string): string {
  let out = code;
  for (const [declaration, constant] of code.matchAll(/const (schema\d+) = (?=[{[])/g)) {
    const start = out.indexOf(declaration) + declaration.length;
    const end = endOfJson(out, start);
    const schema = JSON.parse(out.slice(start, end)) as unknown;
    const rest = out.slice(0, start - declaration.length) + out.slice(end);
    const reads = [
      ...rest.matchAll(
        new RegExp(`\\b${constant}((?:\\.[A-Za-z_$][\\w$]*|\\[\\d+\\]|\\["(?:[^"\\\\]|\\\\.)*"\\])+)`, 'g'),
      ),
    ];
    if (reads.length !== [...rest.matchAll(new RegExp(`\\b${constant}\\b`, 'g'))].length)
      throw new Error(`generated code reads ${constant} other than by property paths: cannot prune it`);
    const kept: Record<string, unknown> = {};
    for (const [, accessors] of reads) {
      const path = pathOf(accessors!);
      let into = kept;
      for (const [i, key] of path.entries()) {
        if (i === path.length - 1) into[key] = at(schema, path);
        else
          into = (into[key] ??= Array.isArray(at(schema, path.slice(0, i + 1))) ? [] : {}) as Record<string, unknown>;
      }
    }
    for (const [, accessors] of reads) {
      const path = pathOf(accessors!);
      if (JSON.stringify(at(kept, path)) !== JSON.stringify(at(schema, path)))
        throw new Error(`pruning ${constant} changed ${accessors}`);
    }
    const semicolon = out[end] === ';' ? 1 : 0;
    out = reads.length
      ? out.slice(0, start) + JSON.stringify(kept) + out.slice(end)
      : out.slice(0, start - declaration.length) + out.slice(end + semicolon);
  }
  return out;
}

/**
 * Where a missing property is a consent (`const: true`, contract §3 "must be accepted"): the schema path of each
 * `required` keyword, as ajv reports it, with those of its properties whose schema is a `const`. The generated
 * validators do not carry the schema in their errors, so src/schemas/validation.ts reads this instead.
 */
export function consentsOf(schema: unknown, pointer = '#'): Record<string, string[]> {
  if (typeof schema !== 'object' || schema === null) return {};
  const found: Record<string, string[]> = {};
  const node = schema as { required?: unknown; properties?: Record<string, unknown> };
  if (Array.isArray(node.required) && node.properties) {
    const consents = (node.required as string[]).filter((p) => {
      const property = node.properties?.[p];
      return typeof property === 'object' && property !== null && 'const' in property;
    });
    if (consents.length) found[`${pointer}/required`] = consents;
  }
  for (const [key, value] of Object.entries(schema))
    Object.assign(found, consentsOf(value, `${pointer}/${escapeFragment(key)}`));
  return found;
}

/** Source of one generated validator module. */
export function generateValidator(name: string, kind: ValidatorKind): string {
  const schema = SCHEMAS[name];
  if (!schema) throw new Error(`No schema ${name} in src/schemas/index.ts`);
  const ajv = createAjv(kind, { source: true, esm: true, formats: _`require("../formats-registry").FORMATS` });
  const validate = ajv.compile(schema);
  const code = pruneSchemaConstants(standaloneCode(ajv, validate));
  const consents = consentsOf(schema);
  for (const path of Object.keys(consents))
    if (!code.includes(`schemaPath:${JSON.stringify(path)}`))
      throw new Error(`${name}: ajv reports no error at ${path}; consentsOf and ajv disagree on schema paths`);
  // The generated code reads non-inlined formats from the run-time registry: each must be there.
  for (const [, dotted, quoted] of code.matchAll(/FORMATS(?:\.([\w$]+)|\["([^"]+)"\])/g)) {
    const format = dotted ?? quoted ?? '';
    if (!(format in FORMATS))
      throw new Error(`${name}: format ${format} is not in src/schemas/formats-registry.ts (needed at run time)`);
  }
  return [
    '// @ts-nocheck',
    `// Generated by scripts/build-validators.ts from SCHEMAS.${name} (${kind}); do not edit.`,
    '// Regenerate with `npm run build:validators`.',
    code,
    ...(Object.keys(consents).length ? [`validate.consents = ${JSON.stringify(consents)};`] : []),
    '',
  ].join('\n');
}

if (require.main === module) {
  mkdirSync(GENERATED_DIR, { recursive: true });
  for (const file of readdirSync(GENERATED_DIR)) rmSync(join(GENERATED_DIR, file));
  for (const target of validatorTargets()) {
    writeFileSync(join(GENERATED_DIR, target.file), generateValidator(target.name, target.kind));
    console.log(`src/schemas/generated/${target.file}  (${target.kind} ${target.name})`);
  }
}
