// Keeps a local JSON copy of a business's employees up to date from the change feed (contract §13).
//   BASE_URL=http://localhost:3000 TOKEN=hr_... node examples/sync-employees.mjs [file] [--follow]
// The file holds the copy and the feed cursor it is current to, written together (a temporary file, then a rename),
// so a run that stops anywhere resumes where the file says: an entry applied twice sets the same record again.
// Without --follow a run ends at the head of the feed; with it, it keeps polling until Ctrl-C.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { createClient } from 'hr-api-client';

const args = process.argv.slice(2);
const follow = args.includes('--follow');
const file = args.find((a) => !a.startsWith('--')) ?? 'employees.json';
const client = createClient({ baseUrl: process.env.BASE_URL ?? 'http://localhost:3000', token: process.env.TOKEN });

let copy = { cursor: undefined, employees: {} };
try {
  copy = JSON.parse(await readFile(file, 'utf8'));
} catch (error) {
  if (error.code !== 'ENOENT') throw error; // first run: from the oldest retained change
}
const save = async () => {
  await writeFile(`${file}.tmp`, JSON.stringify(copy, null, 2));
  await rename(`${file}.tmp`, file);
};

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
let applied = 0;
for await (const change of client.changes({
  cursor: copy.cursor,
  types: ['employee.created', 'employee.updated'],
  follow,
  signal: stop.signal,
})) {
  copy.employees[change.id] = change.data; // the record as it was right after this change
  copy.cursor = change.cursor;
  if (++applied % 100 === 0 || follow) await save();
}
await save();
console.log(JSON.stringify({ applied, employees: Object.keys(copy.employees).length, cursor: copy.cursor }));
