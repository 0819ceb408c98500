import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { PutObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { localS3Config } from '../../src/data/s3/client';

/**
 * The local S3 gate checks a request before it reads its body (issue 54): a
 * refused upload costs the server no memory for its bytes, and the uploads it
 * admits are read a chunk at a time. Run against a gate in a process of its
 * own, whose resident memory is read before and after.
 */
const root = join(__dirname, '..', '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const MIB = 1024 * 1024;

let child: ChildProcess;
let endpoint: string;
let bucket: string;
let client: S3Client;
const answers: ((line: string) => void)[] = [];

beforeAll(async () => {
  child = spawn(tsx, [join(root, 'test', 'support', 's3-gate-process.ts')], {
    cwd: root,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      answers.shift()?.(line);
    }
  });
  ({ endpoint, bucket } = JSON.parse(await new Promise<string>((resolve) => answers.push(resolve))) as {
    endpoint: string;
    bucket: string;
  });
  client = new S3Client(localS3Config(endpoint));
}, 60_000);
afterAll(() => {
  client?.destroy();
  child?.stdin?.end();
});

const memory = async (): Promise<{ rss: number; peak: number }> => {
  const answer = new Promise<string>((resolve) => answers.push(resolve));
  child.stdin!.write('memory\n');
  return JSON.parse(await answer) as { rss: number; peak: number };
};

/**
 * A PUT of `body` with no signature, as a plain HTTP client sends it (no 100-continue): its status. Once answered,
 * the client stops sending (the gate reads no more of it either way). Each PUT has a connection of its own: a
 * pooled one would be handed back once a small body is sent and answered, and the `destroy` below would then
 * close it under the next PUT ("socket hang up").
 */
const unsignedPut = (key: string, body: Buffer): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request(`${endpoint}/${bucket}/${key}`, {
      method: 'PUT',
      headers: { 'content-length': body.length },
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const answered = (): void => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      };
      res.on('error', answered).on('end', answered).resume();
    });
    req.end(body);
  });

test('parallel unsigned 32 MiB PUTs are refused (403) without the gate holding their bytes', async () => {
  const body = Buffer.alloc(32 * MIB, 'x');
  // Warm: every path of a refusal taken once.
  expect(await unsignedPut('warm', Buffer.from('x'))).toBe(403);
  const before = await memory();
  const statuses = await Promise.all(Array.from({ length: 8 }, (_, i) => unsignedPut(`flood/${i}`, body)));
  const after = await memory();
  expect(statuses).toEqual(Array(8).fill(403));
  // 8 x 32 MiB were sent: a gate that reads a body before refusing it grows by about that much.
  const growth = after.peak - before.rss;
  expect(growth).toBeLessThan(32 * MIB);
  await expect(client.send(new GetObjectCommand({ Bucket: bucket, Key: 'flood/0' }))).rejects.toMatchObject({
    $metadata: { httpStatusCode: 404 },
  });
});

test('signed uploads still land whole: a 24 MiB PUT and a 24 MiB POST form', async () => {
  const big = Buffer.alloc(24 * MIB, 'y');
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'big/put', Body: big }));
  const upload = await createPresignedPost(client, {
    Bucket: bucket,
    Key: 'big/post',
    Conditions: [['content-length-range', 0, 32 * MIB]],
    Expires: 60,
  });
  const form = new FormData();
  for (const [name, value] of Object.entries(upload.fields)) form.append(name, value);
  form.append('file', new Blob([big]), 'big.bin');
  expect((await fetch(upload.url, { method: 'POST', body: form })).status).toBe(204);
  for (const Key of ['big/put', 'big/post']) {
    const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(big)).toBe(true);
  }
});
