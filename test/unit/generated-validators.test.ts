import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_DIR, generateValidator, validatorTargets } from '../../scripts/build-validators';

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
