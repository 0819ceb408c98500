/**
 * `npm run fixtures:demo`: writes fixtures/demo.json from the fixed seed
 * (scripts/lib/demo-fixture.ts). The same bytes every run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { demoFixtureText } from './lib/demo-fixture';

const file = join(__dirname, '..', 'fixtures', 'demo.json');
writeFileSync(file, demoFixtureText());
console.log(`Wrote ${file}`);
