import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  consentsOf,
  GENERATED_DIR,
  generateValidator,
  pruneSchemaConstants,
  validatorTargets,
} from '../../scripts/build-validators';

/** The committed standalone validators must be exactly what the schemas generate today. */
describe('src/schemas/generated', () => {
  const targets = validatorTargets();

  it('holds one validator per request and query schema of the route table, nothing else', () => {
    expect(readdirSync(GENERATED_DIR).sort()).toEqual(targets.map((t) => t.file).sort());
  });

  it.each(targets.map((t) => [t.file, t] as const))('%s is up to date (run `npm run build:validators`)', (_f, t) => {
    expect(readFileSync(join(GENERATED_DIR, t.file), 'utf8')).toBe(generateValidator(t.name, t.kind));
  });
});

describe('pruneSchemaConstants', () => {
  const code = (schema: object, body: string): string =>
    `const schema31 = ${JSON.stringify(schema)};function v(){${body}}`;

  it('keeps what the code reads, by dotted, indexed and quoted paths, and nothing else', () => {
    const schema = {
      description: 'long',
      properties: { a: { type: ['string', 'null'], pattern: 'x+' }, 'b-c': { enum: [1, 2], description: 'd' } },
      allOf: [{ enum: ['x'] }, { enum: ['y'] }],
    };
    const pruned = pruneSchemaConstants(
      code(schema, 'f(schema31.properties.a.type, schema31.properties["b-c"].enum, schema31.allOf[1].enum)'),
    );
    expect(pruned).toBe(
      code(
        { properties: { a: { type: ['string', 'null'] }, 'b-c': { enum: [1, 2] } }, allOf: [, { enum: ['y'] }] },
        'f(schema31.properties.a.type, schema31.properties["b-c"].enum, schema31.allOf[1].enum)',
      ),
    );
  });

  it('drops a constant nothing reads, and refuses one read whole', () => {
    expect(pruneSchemaConstants(code({ type: 'object' }, 'return 1'))).toBe('function v(){return 1}');
    expect(() => pruneSchemaConstants(code({ type: 'object' }, 'return schema31'))).toThrow(/cannot prune/);
  });
});

describe('consentsOf', () => {
  it('names the required properties whose schema is a const, by the schema path ajv reports', () => {
    const schema = {
      required: ['terms', 'name'],
      properties: {
        terms: { const: true },
        name: { type: 'string' },
        'a/b': { type: 'object', required: ['ok'], properties: { ok: { const: true } } },
      },
    };
    expect(consentsOf(schema)).toEqual({ '#/required': ['terms'], '#/properties/a~1b/required': ['ok'] });
  });
});
