import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { freePort } from '../../scripts/lib/dynamodb-local';
import { startLoopbackReceiver } from '../support/loopback-receiver';

/**
 * Contract §10: a real `npm start` (embedded DynamoDB Local on its own data
 * folder) listens on 127.0.0.1 only, API and DynamoDB Local alike, and its data
 * folder is readable by its owner only. Contract §14: it delivers webhooks.
 */
const ROOT = join(__dirname, '..', '..');
const LOOPBACK = '127.0.0.1';

interface Listener {
  address: string;
  port: number;
  inode: string;
}

/** Listening TCP sockets of the machine, from /proc/net/tcp{,6} (no ss/netstat needed). */
function listeners(): Listener[] {
  const found: Listener[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local = '', , state, , , , , , inode = ''] = line.trim().split(/\s+/);
      if (state !== '0A') continue; // 0A = LISTEN
      const [hex = '', port = ''] = local.split(':');
      found.push({ address: decodeAddress(hex), port: parseInt(port, 16), inode });
    }
  }
  return found;
}

/** /proc/net addresses are 32-bit words in host (little-endian) order. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((w) => (w.match(/../g) ?? []).reverse().map((b) => parseInt(b, 16)));
  const byte = (i: number): number => bytes[i] ?? 0;
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.slice(0, 10).every((b) => b === 0) && byte(10) === 0xff && byte(11) === 0xff) {
    return `::ffff:${bytes.slice(12).join('.')}`;
  }
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((byte(i) << 8) | byte(i + 1)).toString(16));
  return groups.join(':');
}

/** Every process of a process group (npm, the shell, tsx, node, java). */
function processGroup(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // the process ended meanwhile
  }
  return inodes;
}

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

let dataDir: string;
let child: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  dataDir = join(mkdtempSync(join(tmpdir(), 'hr-api-local-')), 'data');
  // A folder left world-readable by an older version must be tightened, not trusted.
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), LOCAL_DATA_DIR: dataDir };
  delete env.DYNAMODB_ENDPOINT; // the embedded DynamoDB Local is what is under test
  delete env.S3_ENDPOINT; // and so is the embedded S3 server
  delete env.ATTACHMENTS_BUCKET;
  delete env.HOST;
  child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    child!.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('Token:')) resolve();
    });
    child!.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child!.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
  });
}, 240_000);

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
    // The group's stragglers (DynamoDB Local) get a moment, then are gone for sure.
    for (let i = 0; i < 50 && processGroup(child.pid).length; i++) await new Promise((r) => setTimeout(r, 100));
    for (const pid of processGroup(child.pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
}, 30_000);

test('the API, the embedded DynamoDB Local and the S3 server listen on 127.0.0.1 only', () => {
  const apiPort = Number(/localhost:(\d+)\/services/.exec(output)?.[1]);
  const dynamoPort = Number(/DynamoDB: http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
  const s3Port = Number(/S3: +http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
  expect(apiPort).toBeGreaterThan(0);
  expect(dynamoPort).toBeGreaterThan(0);
  expect(s3Port).toBeGreaterThan(0);

  const ours = new Set(processGroup(child!.pid!).flatMap((pid) => [...socketInodes(pid)]));
  const listening = listeners().filter((l) => ours.has(l.inode));
  expect(listening.map((l) => l.port).sort()).toEqual(expect.arrayContaining([apiPort, dynamoPort, s3Port].sort()));
  // Every listening socket of the whole process group, not just the two expected ones.
  for (const l of listening) expect({ port: l.port, address: l.address }).toEqual({ port: l.port, address: LOOPBACK });
});

test('the data folder and its files are readable by their owner only', () => {
  expect(mode(dataDir)).toBe('700');
  const files = readdirSync(dataDir);
  expect(files).toEqual(
    expect.arrayContaining(['demo-token', 'endpoint', 'shared-local-instance.db', 's3', 's3-endpoint']),
  );
  // The S3 server's objects sit in a folder of the owner's only.
  expect(mode(join(dataDir, 's3'))).toBe('700');
  for (const file of files.filter((f) => f !== 's3')) {
    // SQLite's rollback journal exists only while a write is in progress: one that ended since readdir is gone.
    const stat = statSync(join(dataDir, file), { throwIfNoEntry: !file.endsWith('-journal') });
    if (stat) expect({ file, mode: (stat.mode & 0o777).toString(8) }).toEqual({ file, mode: '600' });
  }
});

test('the printed token works against the printed base URL', async () => {
  const base = /Base URL: (\S+)/.exec(output)?.[1] ?? '';
  const token = /Token:\s+(\S+)/.exec(output)?.[1] ?? '';
  const res = await fetch(`${base.replace('localhost', LOOPBACK)}/locations`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
});

test('a write through the API reaches a loopback webhook receiver, signed, from the in-process dispatcher', async () => {
  const base = (/Base URL: (\S+)/.exec(output)?.[1] ?? '').replace('localhost', LOOPBACK);
  const token = /Token:\s+(\S+)/.exec(output)?.[1] ?? '';
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const receiver = await startLoopbackReceiver(LOOPBACK);
  const { url, received } = receiver;
  try {
    const sub = await fetch(`${base}/webhook_subscriptions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url }),
    });
    expect(sub.status).toBe(201);
    const { secret } = (await sub.json()) as { secret: string };
    const created = await fetch(`${base}/employees`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ first_name: 'Hook', last_name: 'Local' }),
    });
    expect(created.status).toBe(201);
    const employee = (await created.json()) as { id: string };
    // Contract §14 says within 5 s; the wait here only bounds a broken run (no wall-clock claims in tests).
    for (let i = 0; i < 600 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(received).toHaveLength(1);
    const delivery = received[0]!;
    const entry = new Webhook(secret).verify(delivery.body, delivery.headers) as { type: string; id: string };
    expect(entry).toMatchObject({ type: 'employee.created', id: employee.id });
  } finally {
    await receiver.close();
  }
}, 60_000);

test('an attachment uploaded to the printed S3 endpoint is checked by the local server itself (contract §19)', async () => {
  const base = (/Base URL: (\S+)/.exec(output)?.[1] ?? '').replace('localhost', LOOPBACK);
  const token = /Token:\s+(\S+)/.exec(output)?.[1] ?? '';
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const app = await fetch(`${base}/applications`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      first_name: 'Cv',
      last_name: 'Local',
      email: 'cv@example.com',
      accept_terms_and_conditions: true,
    }),
  });
  const { id } = (await app.json()) as { id: string };
  const pdf = Buffer.from('%PDF-1.4\n%%EOF\n');
  const created = await fetch(`${base}/applications/${id}/attachments`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ file_name: 'cv.pdf', content_type: 'application/pdf', size: pdf.length }),
  });
  expect(created.status).toBe(201);
  const attachment = (await created.json()) as { id: string; upload: { url: string; fields: Record<string, string> } };
  const s3Port = /S3: +http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
  expect(new URL(attachment.upload.url).port).toBe(s3Port);
  const form = new FormData();
  for (const [name, value] of Object.entries(attachment.upload.fields)) form.append(name, value);
  form.append('file', new Blob([pdf]), 'cv.pdf');
  expect((await fetch(attachment.upload.url, { method: 'POST', body: form })).status).toBe(204);
  // Contract §19 says within 5 s; the wait here only bounds a broken run (no wall-clock claims in tests).
  let shown: { status?: string; download_url?: string } = {};
  for (let i = 0; i < 600 && shown.status !== 'available'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    shown = (await (
      await fetch(`${base}/applications/${id}/attachments/${attachment.id}`, { headers })
    ).json()) as typeof shown;
  }
  expect(shown.status).toBe('available');
  expect(Buffer.from(await (await fetch(shown.download_url!)).arrayBuffer())).toEqual(pdf);
  // What the S3 server wrote for it (the bucket, the CV, its metadata) is the owner's only, folders and files.
  const modes: string[] = [];
  // The server may remove an entry between the listing and its stat (an upload's folder once its object moved on).
  const gone = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      try {
        modes.push(`${entry.isDirectory() ? 'dir' : 'file'} ${mode(full)}`);
        if (entry.isDirectory()) walk(full);
      } catch (error) {
        if (!gone(error)) throw error;
      }
    }
  };
  walk(join(dataDir, 's3'));
  expect(modes.filter((m) => m.startsWith('file')).length).toBeGreaterThan(1);
  expect(new Set(modes)).toEqual(new Set(['dir 700', 'file 600']));
}, 60_000);
