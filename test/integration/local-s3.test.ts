import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { localS3Config, s3 } from '../../src/data/s3/client';
import { presignGet } from '../../src/data/s3/requests';
import { startApi, type TestApi } from '../support/harness';

/**
 * The local S3 endpoint the tests share (jest global setup): the gate in
 * front of s3rver refuses what S3 refuses (contract §19), with S3's XML error.
 */
let api: TestApi;
let Bucket: string;
let endpoint: string;
beforeAll(async () => {
  api = await startApi();
  Bucket = process.env.ATTACHMENTS_BUCKET!;
  endpoint = process.env.S3_ENDPOINT!;
});
afterAll(() => api.close());

const post = async (fields: Record<string, string>, bytes: Buffer, url = `${endpoint}/${Bucket}`) => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([bytes]), 'f.txt');
  const res = await fetch(url, { method: 'POST', body: form });
  return { status: res.status, text: await res.text() };
};

/** S3's XML error: its code, 403 unless said otherwise. */
const refused = (code: string, status = 403) => ({ status, text: expect.stringContaining(`<Code>${code}</Code>`) });

const form = (Key: string, size: number, contentType = 'text/plain', client = s3(), Expires = 60) =>
  createPresignedPost(client, {
    Bucket,
    Key,
    Conditions: [
      ['content-length-range', size, size],
      ['eq', '$Content-Type', contentType],
    ],
    Fields: { 'Content-Type': contentType },
    Expires,
  });

const read = async (Key: string): Promise<string | undefined> =>
  s3()
    .send(new GetObjectCommand({ Bucket, Key }))
    .then((out) => out.Body!.transformToString())
    .catch(() => undefined);

test('it listens on 127.0.0.1, stores a presigned POST upload and serves it to a presigned GET', async () => {
  expect(new URL(endpoint).hostname).toBe('127.0.0.1');
  const Key = 'probe/hello.txt';
  const upload = await form(Key, 5);
  expect(new URL(upload.url).host).toBe(new URL(endpoint).host);
  expect(await post(upload.fields, Buffer.from('hello'), upload.url)).toEqual({ status: 204, text: '' });

  const url = await getSignedUrl(
    s3(),
    new GetObjectCommand({ Bucket, Key, ResponseContentDisposition: 'attachment; filename="hello.txt"' }),
    { expiresIn: 60 },
  );
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-disposition')).toBe('attachment; filename="hello.txt"');
  expect(await res.text()).toBe('hello');
});

test('a POST upload outside its policy is refused (403, XML) and stores nothing', async () => {
  const Key = 'probe/policy.txt';
  const victim = 'uploads/victimco/app_1/att_1';
  await s3().send(new PutObjectCommand({ Bucket, Key: victim, Body: 'victim' }));
  const good = await form(Key, 5);
  const cases: [string, Record<string, string>, Buffer, string?][] = [
    ['another key', { ...good.fields, key: victim }, Buffer.from('evil!')],
    ['a key under attachments/', { ...good.fields, key: 'attachments/victimco/app_1/att_1' }, Buffer.from('evil!')],
    ['another size', good.fields, Buffer.from('longer than five')],
    ['another Content-Type', { ...good.fields, 'Content-Type': 'text/html' }, Buffer.from('<b>!</b>')],
    ['an extra field', { ...good.fields, 'Content-Disposition': 'inline' }, Buffer.from('hello')],
    ['another bucket field', { ...good.fields, bucket: 'elsewhere' }, Buffer.from('hello')],
    [
      'an altered signature',
      { ...good.fields, 'X-Amz-Signature': '0'.repeat(64) },
      Buffer.from('hello'),
      'SignatureDoesNotMatch',
    ],
  ];
  for (const [what, fields, bytes, code = 'AccessDenied'] of cases)
    expect([what, await post(fields, bytes)]).toEqual([what, refused(code)]);
  // No policy at all, or no signature.
  const without = (name: string) => Object.fromEntries(Object.entries(good.fields).filter(([n]) => n !== name));
  expect(await post(without('Policy'), Buffer.from('hello'))).toEqual(refused('AccessDenied'));
  expect(await post({ key: Key, 'Content-Type': 'text/plain' }, Buffer.from('hello'))).toEqual(refused('AccessDenied'));
  expect(await post(without('X-Amz-Signature'), Buffer.from('hello'))).toEqual(refused('AccessDenied'));
  // Signed by another key pair, and expired.
  const stranger = new S3Client({
    ...localS3Config(endpoint),
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'guess' },
  });
  expect(await post((await form(Key, 5, 'text/plain', stranger)).fields, Buffer.from('hello'))).toEqual(
    refused('SignatureDoesNotMatch'),
  );
  const late = new S3Client(localS3Config(endpoint));
  late.config.systemClockOffset = -3_600_000;
  expect(await post((await form(Key, 5, 'text/plain', late)).fields, Buffer.from('hello'))).toEqual(
    refused('AccessDenied'),
  );
  expect(await read(victim)).toBe('victim');
  expect(await read('attachments/victimco/app_1/att_1')).toBeUndefined();
  expect(await read(Key)).toBeUndefined();
  // The same form, as issued, still works.
  expect((await post(good.fields, Buffer.from('hello'))).status).toBe(204);
  expect(await read(Key)).toBe('hello');
  [stranger, late].forEach((c) => c.destroy());
});

test('unsigned or wrongly signed GET, HEAD, PUT, DELETE and listings are refused (403, XML)', async () => {
  const Key = 'probe/private.txt';
  await s3().send(new PutObjectCommand({ Bucket, Key, Body: 'private' }));
  const at = (path: string) => `${endpoint}${path}`;
  for (const [method, path] of [
    ['GET', '/'],
    ['GET', `/${Bucket}`],
    ['GET', `/${Bucket}?list-type=2`],
    ['GET', `/${Bucket}/${Key}`],
    ['HEAD', `/${Bucket}/${Key}`],
    ['DELETE', `/${Bucket}/${Key}`],
    ['PUT', `/${Bucket}/${Key}`],
  ] as const) {
    const res = await fetch(at(path), { method, ...(method === 'PUT' ? { body: 'overwritten' } : {}) });
    expect([method, path, res.status]).toEqual([method, path, 403]);
    if (method !== 'HEAD') expect(await res.text()).toContain('<Code>AccessDenied</Code>');
  }
  // A presigned URL altered anywhere (signature, key, expiry) or expired; a client with a wrong secret or key id.
  const url = new URL(await getSignedUrl(s3(), new GetObjectCommand({ Bucket, Key }), { expiresIn: 60 }));
  const altered = (change: (u: URL) => void) => {
    const u = new URL(url);
    change(u);
    return u.toString();
  };
  for (const bad of [
    altered((u) => u.searchParams.set('X-Amz-Signature', '0'.repeat(64))),
    altered((u) => (u.pathname = `/${Bucket}/probe/hello.txt`)),
    altered((u) => u.searchParams.set('X-Amz-Expires', '3600')),
  ])
    expect((await fetch(bad)).status).toBe(403);
  const expired = await getSignedUrl(s3(), new GetObjectCommand({ Bucket, Key }), {
    expiresIn: 60,
    signingDate: new Date(Date.now() - 3_600_000),
  });
  expect(await (await fetch(expired)).text()).toContain('Request has expired');
  for (const credentials of [
    { accessKeyId: 'S3RVER', secretAccessKey: 'guess' },
    { accessKeyId: 'SOMEONE', secretAccessKey: 'S3RVER' },
  ]) {
    const client = new S3Client({ ...localS3Config(endpoint), credentials, maxAttempts: 1 });
    await expect(client.send(new ListObjectsV2Command({ Bucket }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    });
    await expect(client.send(new DeleteObjectCommand({ Bucket, Key }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    });
    client.destroy();
  }
  expect(await read(Key)).toBe('private');
  // Signed with the local key pair, the same calls work.
  expect((await fetch(url)).status).toBe(200);
  const listed = await s3().send(new ListObjectsV2Command({ Bucket, Prefix: 'probe/' }));
  expect(listed.Contents?.map((c) => c.Key)).toContain(Key);
});

test('If-Match signed into a GET URL (or sent as a header): bytes with another ETag are never served (412)', async () => {
  const Key = 'probe/pinned.txt';
  const { ETag } = await s3().send(new PutObjectCommand({ Bucket, Key, Body: 'checked' }));
  const pinned = await presignGet(Bucket, Key, { expiresSeconds: 60, ifMatch: ETag! });
  expect(await (await fetch(pinned)).text()).toBe('checked');
  // The condition is part of the signature: dropping it breaks the URL.
  const stripped = new URL(pinned);
  stripped.searchParams.delete('If-Match');
  expect((await fetch(stripped)).status).toBe(403);
  await s3().send(new PutObjectCommand({ Bucket, Key, Body: 'changed' }));
  const res = await fetch(pinned);
  expect(res.status).toBe(412);
  expect(await res.text()).toContain('<Code>PreconditionFailed</Code>');
  await expect(s3().send(new GetObjectCommand({ Bucket, Key, IfMatch: ETag }))).rejects.toMatchObject({
    $metadata: { httpStatusCode: 412 },
  });
  // A copy conditioned on the old ETag (what the check does) copies nothing either.
  const copy = { Bucket, Key: 'probe/copy.txt', CopySource: `${Bucket}/${Key}`, CopySourceIfMatch: ETag };
  await expect(s3().send(new CopyObjectCommand(copy))).rejects.toMatchObject({ $metadata: { httpStatusCode: 412 } });
  expect(await read('probe/copy.txt')).toBeUndefined();
});
